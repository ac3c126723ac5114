export { LlmConfig, LlmPricing } from './agent-config.js';
export type { SandboxOptions } from './sandbox-choice.js';
export { LIMIT_NAMES, workspaceSandbox } from './sandbox-choice.js';
export type { SandboxRecord } from './sandbox-choice.js';
export { sandboxLimitsOf } from './sandbox-limits-config.js';
export type { SandboxLimitsConfig } from './sandbox-limits-config.js';
export { defaultImageCache } from './prepare-image.js';
export { SandboxEnvConfig } from './sandbox-env-config.js';
export { toolEnvironment } from './tool-environment.js';
export type { EnvironmentRecord, ToolEnvironment, ToolEnvironmentOptions } from './tool-environment.js';
export { estimateCost } from './token-usage.js';
export { loadAgent } from './load-agent.js';
export type { LoadAgentOptions, LoadedAgent } from './load-agent.js';
export type { ConfigOverride, ConfigOverrides } from './config-overrides.js';
export type { ResolvedImports, ToolSource } from './resolve-imports.js';
export type { ImportBoundary } from './import-boundary.js';
export type { ToolOrigin } from './merge-tools.js';
export { startRun } from './start-run.js';
export type { StartRunOptions } from './start-run.js';
export { continueRun } from './continue-run.js';
export type { ContinueRunOptions } from './continue-run.js';
export type { EngineOptions, RunResult } from './run-options.js';
export { parseDurationFlag, runLimitOptions } from './run-limit-flags.js';
export { resumableRun } from './resumable-run.js';
export type { ResumableRun } from './resumable-run.js';
export type { RunLimitFlags } from './run-limit-flags.js';
export type { RunOutcome } from './exit-codes.js';
export { requestTools } from './built-in-tools.js';
export { listMcpTools } from './list-mcp-tools.js';
export type { HumanInputRequest, AskHumanInteractively } from './ask-human.js';
export { createModelClient, modelClientFromOpenAI } from '@delta/model-wire';
export type {
  ChatCompletion,
  ChatCompletionRequest,
  CompleteOptions,
  ModelClient,
  ModelClientOptions,
  OpenAIClient,
  RetryNotice,
} from '@delta/model-wire';
export type { ModelDelta } from './model-client.js';
export { resolveModelSettings, describeModelSettings } from './model-settings.js';
export type { ModelSettings } from './model-settings.js';
export { runModelSettings } from './run-model-settings.js';
export type { RunModelSettingsOptions } from './run-model-settings.js';
export { runAgent, continueAgent } from './run-agent.js';
export type { AgentRun } from './run-agent.js';
export { workspaceManifest, compareManifests } from './workspace-manifest.js';
export type { ManifestComparison } from './workspace-manifest.js';
export { openRecordedRun, openRecordedRunAt } from './recorded-run.js';
export type { RecordedRun } from './recorded-run.js';
export type { AgentVersions } from './recorded-agent.js';
export { replayRun } from './replay-run.js';
export type { ReplayRunOptions, ReplayResult } from './replay-run.js';
export type { ReplayDivergence } from './replay-check.js';
export { forkRun } from './fork-run.js';
export type { ForkRunOptions, ForkResult } from './fork-run.js';
export { diffRuns } from './diff-runs.js';
export type { RunDiff } from './diff-runs.js';
export type { SettingChange } from './run-settings-diff.js';
export { agentFingerprint } from './agent-fingerprint.js';
export { compareFingerprints, describeFingerprintChanges, shortFingerprint } from './fingerprint-changes.js';
export type { FingerprintChanges } from './fingerprint-changes.js';

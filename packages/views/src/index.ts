// Pages: one run, or a batch and its runs, as self-contained HTML, loaded only by those who ask for them.
export { loadPages } from './load-pages.js';
export type { Pages } from './load-pages.js';
export type { EmbeddedText, ExecutionView, InvocationView, RunView } from './view/collect-run.js';
export { escapeHtml } from './view/escape-html.js';

// The run's records as the inspection commands read them.
export {
  readInvocationRequestBytes,
  readInvocationResponseText,
  readRunJournal,
  toolExecutionFiles,
} from './inspect/run-records.js';
export type { ToolExecutionFiles } from './inspect/run-records.js';
export { findAction, findInvocation } from './inspect/find-record.js';
export type { Found } from './inspect/find-record.js';

// Colours and words.
export { paletteFor } from './inspect/color.js';
export type { Palette } from './inspect/color.js';
export { keptVersionLine } from './inspect/agent-version.js';
export type { FingerprintTools } from './inspect/agent-version.js';
export { visibleControls } from './inspect/visible-controls.js';
export { placeholderNotes } from './inspect/placeholder-notes.js';

// delta list, log, show, diff, replay.
export { agentRuns, workspaceRuns } from './list/list-runs.js';
export type { ListedRun } from './list/list-runs.js';
export { runTable } from './list/run-table.js';
export { createTranscriptFormatter } from './log/format-event.js';
export { pipeFileTo, showFileOn, showOutput } from './show-output.js';
export type { ShowOutput } from './show-output.js';
export { showRun } from './show-run.js';
export type { ShowRunTools } from './show-run.js';
export { showAction, showCallThatDidNotRun, showInvocation } from './show-records.js';
export { diffText } from './compare/diff-text.js';
export { replayObject, replayText } from './compare/replay-text.js';

// delta run and continue: progress as the run goes, then its outcome.
export { createRunOutput } from './progress/run-output.js';
export type { OutputFlags, RunOutput, RunTerminal } from './progress/run-output.js';
export { TerminalAsker } from './progress/terminal-asker.js';
export type { AskerStreams } from './progress/terminal-asker.js';
export { chooseWorkspace } from './progress/choose-workspace.js';
export type { ChoiceStreams } from './progress/choose-workspace.js';
export { reportOutcome } from './report-outcome.js';
export type { OutcomeOptions } from './report-outcome.js';
export type { OutputFormat } from './result/output-format.js';
export { resumeNote } from './result/resume-note.js';

// delta batch, worker, images.
export { createBatchDisplay, describeOutcome } from './batch/batch-display.js';
export type { BatchDisplay } from './batch/batch-display.js';
export type { ProcessTreeUsage } from './batch/process-tree.js';
export { oracleLine, oracleSummaryText } from './batch/oracle-text.js';
export { queueEndText, queueProgressLine } from './batch/queue-text.js';
export { imageCacheText, imagePruneText } from './image-cache-text.js';

// delta init's agent templates.
export { DEFAULT_CONTEXT_YAML, TEMPLATES } from './templates/index.js';
export { initDoneText, templateMenu } from './templates/init-text.js';
export type { AgentTemplate } from './templates/index.js';

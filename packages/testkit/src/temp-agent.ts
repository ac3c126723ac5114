import { stringify } from 'yaml';
import { type FileContent, createTempDir, writeFiles } from './temp-dirs.js';

/**
 * The context.yaml the spec gives new agents: the system prompt, an optional DELTA.md, the journal.
 * A copy of DEFAULT_CONTEXT_YAML in @delta/context-builder (src/manifest.ts), so testkit needs no engine
 * package; context-builder's default-context.test.ts checks that the two stay equal.
 */
export const defaultContextYaml = `sources:
  - type: file
    id: system_prompt
    path: '\${AGENT_HOME}/system_prompt.md'
  - type: file
    id: workspace_guide
    path: '\${CWD}/DELTA.md'
    on_missing: skip
  - type: journal
    id: conversation_history
`;

export const defaultAgentYaml = { name: 'test-agent', llm: { model: 'fake-model' } };

export const defaultSystemPrompt = 'You are a test agent. Do what the user asks.\n';

export interface TempAgentOptions {
  /** agent.yaml as an object (serialized with yaml) or as text. */
  agentYaml?: Record<string, unknown> | string;
  systemPrompt?: string;
  /** context.yaml as an object or text; null writes none. Defaults to defaultContextYaml. */
  contextYaml?: Record<string, unknown> | string | null;
  /** hooks.yaml as an object or text; none by default. */
  hooksYaml?: Record<string, unknown> | string;
  /** More files by path relative to the agent directory, e.g. `{'tools/echo.sh': {content, mode: 0o755}}`. */
  files?: Record<string, FileContent>;
  prefix?: string;
}

function asYaml(value: Record<string, unknown> | string): string {
  return typeof value === 'string' ? value : stringify(value);
}

/** Creates an agent directory under os.tmpdir() (removed by cleanupTempDirs()) and returns its path. */
export async function createTempAgent(options: TempAgentOptions = {}): Promise<string> {
  const directory = await createTempDir(options.prefix ?? 'delta-agent-');
  const files: Record<string, FileContent> = {
    'agent.yaml': asYaml(options.agentYaml ?? defaultAgentYaml),
    'system_prompt.md': options.systemPrompt ?? defaultSystemPrompt,
  };
  const context = options.contextYaml === undefined ? defaultContextYaml : options.contextYaml;
  if (context !== null) files['context.yaml'] = asYaml(context);
  if (options.hooksYaml !== undefined) files['hooks.yaml'] = asYaml(options.hooksYaml);
  await writeFiles(directory, { ...files, ...options.files });
  return directory;
}

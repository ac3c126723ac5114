import { ConfigFileError, type ConfigProblem } from '@delta/yaml-config';

const ENGINE_VARIABLE = /\$\{([^}]*)\}/g;
const KNOWN_VARIABLES = new Set(['AGENT_HOME', 'CWD']);

/** The engine's paths that `${AGENT_HOME}` and `${CWD}` stand for in hook commands. */
export interface EngineVariables {
  agentHome: string;
  cwd: string;
}

/** Problems for every `${X}` in `value` other than `${AGENT_HOME}` and `${CWD}`. */
export function unknownVariableProblems(
  value: string,
  file: string,
  field: string,
  position: { line: number; column: number } | undefined,
): ConfigProblem[] {
  return [...value.matchAll(ENGINE_VARIABLE)]
    .filter((match) => !KNOWN_VARIABLES.has(match[1] ?? ''))
    .map((match) => ({
      file,
      ...(position ?? {}),
      field,
      message: `unknown variable \${${match[1]}} in ${JSON.stringify(value)} (expected \${AGENT_HOME} or \${CWD})`,
    }));
}

export function unknownVariableError(file: string, problems: ConfigProblem[]): ConfigFileError {
  return new ConfigFileError(
    file,
    problems,
    'Only ${AGENT_HOME} (the agent directory) and ${CWD} (the workspace) are substituted in hook commands; ' +
      'a hook reads everything else from its environment (RUN_DIR, TOOL_NAME, ...) or from $DELTA_HOOK_IO_PATH/input/.',
  );
}

/** Replaces `${AGENT_HOME}` and `${CWD}` with the engine's paths. */
export function substituteEngineVariables(value: string, variables: EngineVariables): string {
  return value.replace(/\$\{AGENT_HOME\}/g, variables.agentHome).replace(/\$\{CWD\}/g, variables.cwd);
}

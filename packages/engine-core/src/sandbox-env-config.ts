import { z } from 'zod';
import { NAME_PATTERN, NEVER_PASSED_NAMES, RUN_VARIABLES, unexportableReason } from './environment-names.js';

/** The engine variables a `set:` value may name (as in tool templates and MCP servers' env). */
const SET_VARIABLES: readonly string[] = ['AGENT_HOME', 'CWD'];

/** Why no agent.yaml may name `name` in `pass:` or `set:`, or undefined when it may. */
function refusedName(name: string): string | undefined {
  if (NEVER_PASSED_NAMES.includes(name)) {
    return name === 'DELTA_QUEUE'
      ? 'DELTA_QUEUE holds the queue address and its password, which no tool is ever given'
      : `${name} is a model credential, which no tool is given this way (a tool that needs the key says pass_model_credentials: true)`;
  }
  if (RUN_VARIABLES.includes(name)) return `${name} is set by the engine for every run`;
  const unexportable = unexportableReason(name);
  return unexportable === undefined ? undefined : `"${name}" cannot be passed: ${unexportable}`;
}

const PassEntry = z.string().superRefine((entry, context) => {
  if (!NAME_PATTERN.test(entry)) {
    context.addIssue({
      code: 'custom',
      message: `"${entry}" is not a variable name or a pattern of one (letters, digits and _, with * and ? as wildcards)`,
    });
    return;
  }
  const refused = /[*?]/.test(entry) ? undefined : refusedName(entry);
  if (refused !== undefined) context.addIssue({ code: 'custom', message: refused });
});

const SetValue = z.string().superRefine((text, context) => {
  for (const match of text.matchAll(/\$\{([^}]*)\}/g)) {
    if (SET_VARIABLES.includes(match[1]!)) continue;
    context.addIssue({
      code: 'custom',
      message: `${match[0]} is not a variable the engine fills in here (only \${AGENT_HOME} and \${CWD}); a value is passed as written`,
    });
  }
});

/**
 * `sandbox.env:` in agent.yaml: the environment of the agent's tools, stdio MCP servers and command
 * graders. `inherit` picks what comes from the user's environment (`core` by default, `all`, `none`),
 * `pass` adds names or patterns of it, `set` pins values. The model credentials, DELTA_QUEUE and any
 * variable holding a secret's value are never passed (see docs/configuration.md).
 */
export const SandboxEnvConfig = z.strictObject({
  inherit: z.enum(['core', 'all', 'none']).optional(),
  pass: z.array(PassEntry).optional(),
  set: z
    .record(z.string(), SetValue)
    .superRefine((set, context) => {
      for (const name of Object.keys(set)) {
        const refused = refusedName(name);
        // On the mapping, not the entry: the message then never quotes the value, which may be a key.
        if (refused !== undefined) context.addIssue({ code: 'custom', message: refused });
      }
    })
    .optional(),
});
export type SandboxEnvConfig = z.infer<typeof SandboxEnvConfig>;

/** The fix shown under an error in `sandbox.env`. */
export const SANDBOX_ENV_HINT =
  'sandbox.env chooses what tools get of your environment: inherit: core (the default), all or none; pass: names or patterns; set: values. For example\n' +
  'sandbox:\n  env:\n    pass: [GITHUB_TOKEN, "PYTHON*"]\n    set: {DATA_DIR: "${AGENT_HOME}/data"}\n' +
  "Names are letters, digits and _ (not bash's own, such as UID); the model credentials and DELTA_QUEUE are never passed.";

/** `${AGENT_HOME}` and `${CWD}` in a `set:` value, filled in. */
export function fillSetVariables(text: string, variables: { AGENT_HOME: string; CWD: string }): string {
  return text.replace(/\$\{(AGENT_HOME|CWD)\}/g, (_whole, name: 'AGENT_HOME' | 'CWD') => variables[name]);
}

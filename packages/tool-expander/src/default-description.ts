import type { ExpandedTool } from './expanded-tool.js';

/** Long enough for a command line, short enough not to crowd the model's context. */
const MAX_LENGTH = 200;

/** A shell: script's `"$1"`, `$1` or `${10}`. */
const POSITIONAL = /"\$(\d)"|"\$\{(\d+)\}"|\$(\d)|\$\{(\d+)\}/g;

/** A shell: tool's form, `sh -c <script> -- <engine variables>`, whether written as shell: or as command:. */
function isShellForm(tool: ExpandedTool): boolean {
  const [program, flag, , separator] = tool.command;
  const options = tool.parameters.some((parameter) => parameter.inject_as === 'option');
  return tool.mode !== 'exec' && program === 'sh' && flag === '-c' && separator === '--' && !options;
}

/** What the tool runs, with `${name}` where each parameter goes, on one line. */
function commandText(tool: ExpandedTool): string {
  const byPosition = tool.parameters
    .filter((parameter) => parameter.inject_as === 'argument')
    .sort((left, right) => (left.position ?? 0) - (right.position ?? 0));
  if (tool.mode === 'exec') return tool.command.join(' ');
  if (!isShellForm(tool)) {
    const options = tool.parameters.flatMap((parameter) =>
      parameter.inject_as === 'option' ? [`${parameter.option_name} \${${parameter.name}}`] : [],
    );
    return [...tool.command, ...options, ...byPosition.map((parameter) => `\${${parameter.name}}`)].join(' ');
  }
  // shell: $1.. are the engine variables after `--`, then the parameters by position.
  const values = [...tool.command.slice(4), ...byPosition.map((parameter) => `\${${parameter.name}}`)];
  const script = tool.command[2] ?? '';
  return script.replace(POSITIONAL, (reference, ...digits: (string | undefined)[]) => {
    const number = Number(digits.slice(0, 4).find((digit) => digit !== undefined));
    return values[number - 1] ?? reference;
  });
}

/**
 * The description the model is sent for a tool: its own, or when it has none (absent or blank) what it
 * runs, `Runs: echo ${message}` (`Runs in sh: ...` for a shell: tool). Spec 000's schema requires a
 * description, yet the spec's own example tools omit it: this documented default keeps those loading, with
 * no warning, and gives the model more than "".
 */
export function modelDescription(tool: ExpandedTool): string {
  if (tool.description.trim() !== '') return tool.description;
  const line = commandText(tool).replace(/\s+/g, ' ').trim();
  const text = line.length > MAX_LENGTH ? `${line.slice(0, MAX_LENGTH - 1)}…` : line;
  // The same words for a shell: tool and for its expansion pasted back as command: [sh, -c, ...].
  return `${isShellForm(tool) ? 'Runs in sh' : 'Runs'}: ${text}`;
}

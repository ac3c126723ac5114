import type { ParameterType, ParameterValue } from './parameter-type.js';

/** How a parameter's value reaches the process. */
export type InjectAs = 'argument' | 'stdin' | 'option';

/** The execution mode a tool was declared with. */
export type ToolMode = 'command' | 'exec' | 'shell';

/** A parameter after expansion and merging: the single form the engine and the model see. */
export interface ExpandedParameter {
  name: string;
  /** The JSON type the model must send; the program receives the value as text whatever the type. */
  type: ParameterType;
  /** The only values the model may send. */
  enum?: ParameterValue[];
  description?: string;
  /** True when the model must supply it: no default, and not declared `required: false`. */
  required: boolean;
  inject_as: InjectAs;
  /** command/shell: the order in which values are appended after `command`. exec: order of first appearance. */
  position?: number;
  /** shell only: the value is referenced unquoted (`$1`), so the shell splits and globs it. */
  raw?: boolean;
  /** inject_as option only: the flag written before the value (`--port 8080`). */
  option_name?: string;
  default?: ParameterValue;
}

/**
 * The one internal form of a tool, whatever syntax it was declared with.
 *
 * - `command`: `command` is the fixed argv prefix; options, then arguments (by position), are appended.
 * - `exec`: `command` is the complete argv with placeholder elements in place, e.g.
 *   `["printf", "[%s][%s]", "${a}", "END"]` or `["tool", "--name=${n}"]`; each element that holds a
 *   placeholder becomes exactly one argv element with the value substituted. No shell is involved.
 * - `shell`: `command` is `["sh", "-c", script, "--", ...engineVariables]`; the script references values
 *   only as positional parameters (`"$1"`), and argument values are appended after it by position.
 */
export interface ExpandedTool {
  name: string;
  description: string;
  mode: ToolMode;
  command: string[];
  parameters: ExpandedParameter[];
  /** Milliseconds before the engine stops the tool's whole process group; the default when not declared. */
  timeout_ms: number;
  /** True only when the definition says `pass_model_credentials: true`: the tool gets DELTA_API_KEY. */
  pass_model_credentials: boolean;
  /** Bytes of each output stream the model is shown, when the definition sets it; else the agent's default. */
  max_output_bytes?: number;
  /** Set when the definition says `allow_option_values: true`: no argument-injection warning. */
  allow_option_values?: true;
}

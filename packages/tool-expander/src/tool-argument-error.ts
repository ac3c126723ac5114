import { ModelBehaviourError } from '@delta/errors';

export interface ToolArgumentErrorOptions {
  tool: string;
  /** The argument the first problem is about, when there is one. */
  argument?: string | undefined;
  hint?: string | undefined;
}

/**
 * The model called a tool with arguments that do not fit its parameters. The message is written
 * for the model: it becomes the observation, so the model can correct the call.
 */
export class ToolArgumentError extends ModelBehaviourError {
  readonly tool: string;
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options: ToolArgumentErrorOptions) {
    super(`Invalid arguments for tool '${options.tool}': ${problems.join(' ')}`, {
      code: 'TOOL_ARGUMENTS_INVALID',
      field: options.argument,
      hint: options.hint,
    });
    this.tool = options.tool;
    this.problems = problems;
  }
}

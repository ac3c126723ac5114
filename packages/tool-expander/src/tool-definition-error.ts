import { ConfigurationError } from '@delta/errors';

/** One problem in a tool definition, located by its field path (`tools[2].parameters[0].name`). */
export interface ToolDefinitionIssue {
  field: string;
  /** What failed, in one sentence. */
  message: string;
  expected?: string;
  found?: string;
  /** What the user can change to fix it. */
  hint?: string;
  /** The problem is the key itself (an unknown key), so it is located at the key rather than its value. */
  aboutKey?: true;
}

/** Something a user can notice but need not fix, such as an unknown key (never fatal). */
export interface ToolDefinitionWarning {
  field: string;
  message: string;
  /** The warning is about the key itself (an unknown key), so it is located at the key rather than its value. */
  aboutKey?: true;
  /** What kind of warning it is, for a loader that gathers warnings of one kind (ARGUMENT_INJECTION). */
  code?: string;
  /** For a gathered warning: what this one is about, in a few words (`find_files (${directory} to find)`). */
  subject?: string;
}

export interface ToolDefinitionErrorOptions {
  file?: string | undefined;
  /** The tool's name, when it could be read. */
  tool?: string | undefined;
}

/** A tool definition in the user's configuration is wrong; the fix is theirs. */
export class ToolDefinitionError extends ConfigurationError {
  readonly issues: readonly ToolDefinitionIssue[];
  readonly tool: string | undefined;

  constructor(issues: readonly ToolDefinitionIssue[], options: ToolDefinitionErrorOptions = {}) {
    const first = issues[0] ?? { field: '', message: 'Invalid tool definition.' };
    super(formatMessage(issues, options), {
      code: 'TOOL_DEFINITION_INVALID',
      file: options.file,
      field: first.field,
      hint: formatHint(issues),
    });
    this.issues = issues;
    this.tool = options.tool;
  }
}

export function formatIssue(issue: ToolDefinitionIssue): string {
  const location = issue.field === '' ? '' : `${issue.field}: `;
  const detail =
    issue.expected === undefined ? '' : ` Expected ${issue.expected}${issue.found === undefined ? '' : `, found ${issue.found}`}.`;
  // Some messages are written without a full stop; the detail must not run on as the same sentence.
  const message = detail === '' || /[.?!:]$/.test(issue.message) ? issue.message : `${issue.message}.`;
  return `${location}${message}${detail}`;
}

function formatMessage(issues: readonly ToolDefinitionIssue[], options: ToolDefinitionErrorOptions): string {
  const file = options.file === undefined ? '' : `${options.file}: `;
  if (issues.length <= 1) return `${file}${formatIssue(issues[0] ?? { field: '', message: 'Invalid tool definition.' })}`;
  const subject = options.tool === undefined ? 'tool definition' : `tool '${options.tool}'`;
  return `${file}${subject} has ${issues.length} problems:\n${issues.map((issue) => `  - ${formatIssue(issue)}`).join('\n')}`;
}

function formatHint(issues: readonly ToolDefinitionIssue[]): string | undefined {
  const hints = issues.flatMap((issue) =>
    issue.hint === undefined ? [] : [issues.length > 1 ? `${issue.field}: ${issue.hint}` : issue.hint],
  );
  return hints.length === 0 ? undefined : hints.join('\n');
}

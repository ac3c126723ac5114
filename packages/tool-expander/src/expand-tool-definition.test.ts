import { describe, expect, it } from 'vitest';
import { expandTool, safeExpandTool, type ToolDefinitionWarning } from './index.js';
import type { ToolDefinitionError } from './tool-definition-error.js';
import { formatIssue } from './tool-definition-error.js';
import { failure } from './expand-tool.test-support.js';

describe('parameter merging (001 section 3.7.1)', () => {
  it('adds description, default and required, and keeps the inferred structure', () => {
    const tool = expandTool({
      name: 'search_tool',
      exec: 'grep ${pattern} ${file}',
      parameters: [
        { name: 'file', description: 'File to search in', default: './data.txt' },
        { name: 'pattern', description: 'Search pattern (regex supported)', type: 'string', inject_as: 'argument', position: 0 },
      ],
    });
    expect(tool.parameters).toEqual([
      {
        name: 'pattern',
        type: 'string',
        description: 'Search pattern (regex supported)',
        required: true,
        inject_as: 'argument',
        position: 0,
      },
      {
        name: 'file',
        type: 'string',
        description: 'File to search in',
        default: './data.txt',
        required: false,
        inject_as: 'argument',
        position: 1,
      },
    ]);
    expect(expandTool({ name: 't', exec: 'ls ${dir}', parameters: [{ name: 'dir', required: false }] }).parameters[0]?.required).toBe(
      false,
    );
  });

  it('describes an external stdin parameter', () => {
    const tool = expandTool({
      name: 'write_tool',
      exec: 'tee ${filename}',
      stdin: 'content',
      parameters: [{ name: 'content', description: 'Content to write', inject_as: 'stdin' }],
    });
    expect(tool.parameters[1]).toEqual({
      name: 'content',
      type: 'string',
      description: 'Content to write',
      required: true,
      inject_as: 'stdin',
    });
  });

  it.each([
    [
      { shell: 'cat ${file} | wc -l', parameters: [{ name: 'file', inject_as: 'stdin' }] },
      "Cannot override inject_as for parameter 'file' (inferred: argument, explicit: stdin)",
      'parameters[0].inject_as',
      'stdin: file',
    ],
    [
      { exec: 'tee ${f}', stdin: 'c', parameters: [{ name: 'c', inject_as: 'argument' }] },
      "Cannot override inject_as for parameter 'c' (inferred: stdin, explicit: argument)",
      'parameters[0].inject_as',
      'Remove inject_as',
    ],
    [
      { exec: 'echo ${message}', parameters: [{ name: 'unknown_param' }] },
      "Parameter 'unknown_param' not found in template",
      'parameters[0].name',
      'Add ${unknown_param}',
    ],
    [
      { shell: 'docker run ${flags} ${image}', parameters: [{ name: 'flags', raw: true }] },
      ':raw modifier must be specified in template syntax (${flags:raw})',
      'parameters[0].raw',
      '${flags:raw}',
    ],
    [
      { shell: 'docker run ${flags:raw}', parameters: [{ name: 'flags', raw: false }] },
      "Cannot remove the :raw modifier of parameter 'flags'",
      'parameters[0].raw',
      'without :raw',
    ],
    [
      { exec: 'cp ${a} ${b}', parameters: [{ name: 'b', position: 0 }] },
      "Cannot override position for parameter 'b' (inferred: 1, explicit: 0)",
      'parameters[0].position',
      'Remove position',
    ],
    [
      { exec: 'tee ${a}', stdin: 'c', parameters: [{ name: 'c', position: 1 }] },
      "Cannot override position for parameter 'c' (inferred: none, explicit: 1)",
      'parameters[0].position',
      'Remove position',
    ],
    [
      { exec: 'ls ${a}', parameters: [{ name: 'a', option_name: '--a' }] },
      "option_name does not apply to parameter 'a' (inject_as: argument)",
      'parameters[0].option_name',
      '--port ${port}',
    ],
    [
      { exec: 'ls ${a}', parameters: [{ name: 'a' }, { name: 'a' }] },
      "Parameter 'a' is declared twice in parameters.",
      'parameters[1].name',
      'Merge',
    ],
    [
      { exec: 'ls ${AGENT_HOME}', parameters: [{ name: 'AGENT_HOME' }] },
      "'AGENT_HOME' is an engine variable, not a parameter.",
      'parameters[0].name',
      'filled in by the engine',
    ],
    [
      { exec: 'tee ${content}', stdin: 'content' },
      "Parameter 'content' is used both in the template and as stdin.",
      'stdin',
      'Remove ${content}',
    ],
    [{ exec: 'wc -l', stdin: 'CWD' }, "'CWD' is an engine variable, not a parameter.", 'stdin', 'content'],
  ])('rejects %j', (fields, message, field, hint) => {
    const error = failure({ name: 'bad_tool', ...fields }, { file: 'tools/x.yaml', path: 'tools[1]' });
    expect(error.message).toContain(`tools/x.yaml: tools[1].${field}: ${message}`);
    expect(error.field).toBe(`tools[1].${field}`);
    expect(error.hint).toContain(hint);
  });

  it('reports every merge problem at once', () => {
    const error = failure(
      { name: 'bad_tool', shell: 'grep ${pattern} ${file}', parameters: [{ name: 'pattern', inject_as: 'stdin' }, { name: 'nope' }] },
      { file: 'agent.yaml', path: 'tools[0]' },
    );
    expect(error.issues).toHaveLength(2);
    expect(error.message).toBe(
      "agent.yaml: tool 'bad_tool' has 2 problems:\n" +
        "  - tools[0].parameters[0].inject_as: Cannot override inject_as for parameter 'pattern' (inferred: argument, explicit: stdin)\n" +
        "  - tools[0].parameters[1].name: Parameter 'nope' not found in template. Expected one of 'pattern', 'file', found 'nope'.",
    );
    expect(error.hint).toContain('tools[0].parameters[1].name: Add ${nope}');
  });
});

describe('the definition shape', () => {
  it.each([
    [{ name: 'a', exec: 'x', shell: 'y' }, 'shell', 'Tool must specify exactly one of: exec, shell, or command', 'exec and shell'],
    [{ name: 'a' }, '', 'Tool must specify exactly one of: exec, shell, or command', 'none of them'],
    [{ name: 'my tool', exec: 'x' }, 'name', "'name' has the wrong value.", '"my tool"'],
    [{ name: 'x'.repeat(65), exec: 'x' }, 'name', "'name' has the wrong value.", `"${'x'.repeat(65)}"`],
    [{ exec: 'x' }, 'name', "Missing required field 'name'.", 'nothing (the field is missing)'],
    [{ name: 'a', exec: 5 }, 'exec', "'exec' has the wrong type.", 'number 5'],
    [{ name: 'a', exec: '' }, 'exec', "'exec' is empty.", '""'],
    [{ name: 'a', command: [] }, 'command', "'command' is empty.", 'a list of 0'],
    [{ name: 'a', command: 'ls -la' }, 'command', "'command' has the wrong type.", '"ls -la"'],
    [
      { name: 'a', exec: 'x', parameters: [{ name: 'n', default: [10] }] },
      'parameters[0].default',
      "'default' has the wrong value.",
      'a list of 1',
    ],
    [{ name: 'a', exec: 'x', parameters: [{ name: 'n', type: 'float' }] }, 'parameters[0].type', "'type' has the wrong value.", '"float"'],
    [
      { name: 'a', exec: 'x', parameters: [{ name: 'n', inject_as: 'env' }] },
      'parameters[0].inject_as',
      "'inject_as' has the wrong value.",
      '"env"',
    ],
    [{ name: 'a', exec: 'x', parameters: [{ name: 'my-param' }] }, 'parameters[0].name', "'name' has the wrong value.", '"my-param"'],
    [
      { name: 'a', exec: 'x', parameters: [{ name: 'n', position: -1 }] },
      'parameters[0].position',
      "'position' is too small.",
      'number -1',
    ],
    [{ name: 'a', exec: 'x', description: null }, 'description', "'description' has the wrong type.", 'null (an empty value)'],
    ['ls -la', '', 'A tool definition must be a mapping.', '"ls -la"'],
  ])('rejects %j with the field, what was expected, what was found, and a fix', (definition, field, message, found) => {
    const error = failure(definition, { file: 'agent.yaml', path: 'tools[4]' });
    const location = field === '' ? 'tools[4]' : `tools[4].${field}`;
    expect(error.message).toContain(`agent.yaml: ${location}: ${message}`);
    expect(error.message).toMatch(new RegExp(`Expected .+, found ${found.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`));
    expect(error.field).toBe(location);
    expect(error.hint).toBeTruthy();
  });

  it('works without file or path', () => {
    const error = failure({ name: 'a', exec: 'a | b' });
    expect(error.message.startsWith("exec: Shell metacharacter '|'")).toBe(true);
    expect(formatIssue(error.issues[0]!)).toBe(error.message);
  });

  it('warns about unknown keys by name and still expands', () => {
    const warnings: ToolDefinitionWarning[] = [];
    const result = safeExpandTool(
      { name: 'a', exec: 'ls -- ${d}', timeout: 5, parameters: [{ name: 'd', note: 'mine' }] },
      { path: 'tools[0]', onWarning: (warning) => warnings.push(warning) },
    );
    expect(result.success).toBe(true);
    expect(warnings.map((warning) => warning.field)).toEqual(['tools[0].timeout', 'tools[0].parameters[0].note']);
    expect(warnings[1]?.message).toContain("Unknown parameter key 'note' is ignored. Known keys: name, type, enum, description");
    expect(result.warnings).toEqual(warnings);
  });

  it('refuses a key close to a known one, with the suggestion, so a misspelled setting never fails open', () => {
    const result = safeExpandTool(
      { name: 'a', exec: 'ls ${d}', timout_ms: 5, parameters: [{ name: 'd', descripton: 'typo' }] },
      { path: 'tools[0]', file: 'agent.yaml' },
    );
    expect(result.success).toBe(false);
    const error = (result as { error: ToolDefinitionError }).error;
    expect(error.code).toBe('TOOL_DEFINITION_INVALID');
    expect(error.issues.map((issue) => [issue.field, issue.message])).toEqual([
      ['tools[0].timout_ms', "Unknown tool key 'timout_ms': did you mean 'timeout_ms'?"],
      ['tools[0].parameters[0].descripton', "Unknown parameter key 'descripton': did you mean 'description'?"],
    ]);
    expect(error.hint).toContain('tools[0].timout_ms: Rename timout_ms to timeout_ms');
    expect(result.warnings).toEqual([]);
  });

  it("reports a template's own problem with a misspelled key or a wrong value in the same round", () => {
    const result = safeExpandTool(
      { name: 'quoted', descripton: 'typo', shell: "echo '${x}'", timeout_ms: 'soon', parameters: [{ name: 'x', type: 'string' }] },
      { path: 'tools[0]', file: 'agent.yaml' },
    );
    expect(result.success).toBe(false);
    const error = (result as { error: ToolDefinitionError }).error;
    expect(error.issues.map((issue) => issue.field)).toEqual(['tools[0].descripton', 'tools[0].timeout_ms', 'tools[0].shell']);
    expect(error.issues[2]!.message).toBe('A placeholder inside single quotes would not be substituted.');
    expect(error.message).toContain("found '${x}' at column 6");

    const exec = safeExpandTool({ name: 'piped', exec: 'grep ${p} | wc -l', timout_ms: 5 }, { path: 'tools[1]' });
    expect((exec as { error: ToolDefinitionError }).error.issues.map((issue) => issue.field)).toEqual([
      'tools[1].timout_ms',
      'tools[1].exec',
    ]);
    // What cannot be read as a definition at all reports its shape alone.
    const shapeless = safeExpandTool({ exec: "echo '${x}'", shell: 'true' }, { path: 'tools[2]' });
    expect((shapeless as { error: ToolDefinitionError }).error.issues.map((issue) => issue.field)).not.toContain('tools[2].exec');
  });

  it('throws from expandTool and rethrows nothing else', () => {
    expect(() => expandTool({ name: 'a', exec: 'a | b' }, { file: 'agent.yaml' })).toThrow("agent.yaml: exec: Shell metacharacter '|'");
  });
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir, loadScript } from './index.js';
import { ScriptFileError, parseScript } from './parse-script.js';

afterAll(cleanupTempDirs);

async function scriptFile(name: string, text: string): Promise<string> {
  const file = join(await createTempDir('delta-script-'), name);
  await writeFile(file, text);
  return file;
}

function failure(run: () => unknown): ScriptFileError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScriptFileError) return error;
    throw error;
  }
  throw new Error('expected a ScriptFileError');
}

describe('loadScript', () => {
  it('reads a YAML list of steps', async () => {
    const file = await scriptFile(
      'steps.yaml',
      `- content: Hello
- tool_calls:
    - name: read_file
      arguments: { path: a.txt }
    - id: call_custom
      name: broken
      raw_arguments: '{"path": '
- error: { status: 429, message: slow down }
  delay_ms: 10
`,
    );
    expect(loadScript(file)).toEqual([
      { content: 'Hello' },
      {
        tool_calls: [
          { name: 'read_file', arguments: { path: 'a.txt' } },
          { id: 'call_custom', name: 'broken', raw_arguments: '{"path": ' },
        ],
      },
      { error: { status: 429, message: 'slow down' }, delay_ms: 10 },
    ]);
  });

  it('reads JSON with a steps key', async () => {
    const file = await scriptFile(
      'steps.json',
      JSON.stringify({ steps: [{ content: 'Hi', usage: { prompt_tokens: 3, completion_tokens: 1 } }] }),
    );
    expect(loadScript(file)).toEqual([{ content: 'Hi', usage: { prompt_tokens: 3, completion_tokens: 1 } }]);
  });

  it('names the file, the step index and the field of a bad step', async () => {
    const file = await scriptFile('bad.yaml', '- content: ok\n- tool_calls:\n    - arguments: {}\n');
    const error = failure(() => loadScript(file));
    expect(error.message).toMatch(new RegExp(`^${file}: step 1, field 'tool_calls\\[0\\].name': `));
    expect(error).toMatchObject({ file, stepIndex: 1, field: 'tool_calls[0].name' });
  });

  it('names unknown keys, so a typo is not silently ignored', async () => {
    const file = await scriptFile('typo.yaml', '- contnet: Hello\n');
    expect(failure(() => loadScript(file)).message).toMatch(/step 0: unknown key 'contnet'/);
  });

  it('rejects steps that do nothing or do two things at once', () => {
    expect(failure(() => parseScript([{ delay_ms: 5 }], 's.yaml')).message).toBe(
      's.yaml: step 0: a step needs content, tool_calls, error, raw or large',
    );
    expect(failure(() => parseScript([{ content: 'x', error: { status: 500 } }], 's.yaml')).message).toMatch(
      /step 0, field 'error': an error step cannot also have content or tool_calls/,
    );
    expect(failure(() => parseScript([{ tool_calls: [{ name: 'x', arguments: {}, raw_arguments: '{' }] }], 's.yaml')).field).toBe(
      'tool_calls[0].raw_arguments',
    );
    expect(failure(() => parseScript([{ error: { status: 200 } }], 's.yaml')).field).toBe('error.status');
  });

  it('explains a missing file, unparsable YAML, and the wrong top-level shape', async () => {
    expect(failure(() => loadScript('/nonexistent/steps.yaml')).message).toBe(
      '/nonexistent/steps.yaml: cannot read the script: the file does not exist',
    );
    const broken = await scriptFile('broken.yaml', '- content: "unterminated\n');
    expect(failure(() => loadScript(broken)).message).toMatch(/broken.yaml: not valid YAML or JSON: /);
    const shape = await scriptFile('shape.yaml', 'content: Hello\n');
    expect(failure(() => loadScript(shape)).message).toMatch(/expected a list of steps or an object with a 'steps' list/);
    const empty = await scriptFile('empty.yaml', '[]\n');
    expect(failure(() => loadScript(empty)).message).toMatch(/the script has no steps/);
  });
});

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir, scriptFromRun } from './index.js';
import type { CliIo } from './run-cli.js';
import { runCli } from './run-cli.js';

afterAll(cleanupTempDirs);

/** A run directory as the engine writes it: two THOUGHTs, the first with a tool call, and their responses. */
async function recordedRunDir(): Promise<string> {
  const runDir = join(await createTempDir('delta-run-'), '.delta', 'r1');
  const thought = (iteration: number, ref: string) => ({
    seq: iteration + 1,
    timestamp: 't',
    type: 'THOUGHT',
    iteration,
    llm_invocation_ref: ref,
    content: 'x',
    tool_calls: [],
  });
  const response = (message: Record<string, unknown>) => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', ...message } }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  });
  await mkdir(join(runDir, 'io', 'invocations', '0001_aaaaaa'), { recursive: true });
  await mkdir(join(runDir, 'io', 'invocations', '0002_bbbbbb'), { recursive: true });
  await writeFile(
    join(runDir, 'io', 'invocations', '0001_aaaaaa', 'response.json'),
    JSON.stringify(
      response({
        content: 'Reading.',
        tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }],
      }),
    ),
  );
  await writeFile(join(runDir, 'io', 'invocations', '0002_bbbbbb', 'response.json'), JSON.stringify(response({ content: 'It says hi.' })));
  await writeFile(
    join(runDir, 'journal.jsonl'),
    `${[{ seq: 1, timestamp: 't', type: 'USER_MESSAGE', content: 'go' }, thought(1, '0001_aaaaaa'), thought(2, '0002_bbbbbb')].map((event) => JSON.stringify(event)).join('\n')}\n`,
  );
  return runDir;
}

function captureIo(): CliIo & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (err += text) },
    env: { PATH: process.env.PATH },
    err: () => err,
  };
}

describe('delta-fake-llm --from-run and --log', () => {
  it("serves a recorded run's answers in order (ids, argument text, tokens) and logs every request", async () => {
    const runDir = await recordedRunDir();
    expect(scriptFromRun(runDir)).toEqual([
      {
        content: 'Reading.',
        tool_calls: [{ id: 'call_7', name: 'read', raw_arguments: '{"path":"a.txt"}' }],
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      },
      { content: 'It says hi.', usage: { prompt_tokens: 11, completion_tokens: 7 } },
    ]);

    const dir = await createTempDir('delta-log-');
    const log = join(dir, 'requests.jsonl');
    const output = join(dir, 'answers.json');
    const code = `(async () => {
      const answers = [];
      for (const text of ['first', 'second']) {
        const response = await fetch(process.env.DELTA_BASE_URL + '/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.DELTA_API_KEY },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: text }] }),
        });
        answers.push((await response.json()).choices[0].message);
      }
      require('node:fs').writeFileSync(${JSON.stringify(output)}, JSON.stringify(answers));
    })()`;
    const io = captureIo();
    const exit = await runCli(['--from-run', runDir, '--log', log, '--', process.execPath, '--input-type=commonjs', '-e', code], io);
    expect(io.err()).toBe('');
    expect(exit).toBe(0);
    const answers = JSON.parse(await readFile(output, 'utf8'));
    expect(answers[0]).toMatchObject({
      content: 'Reading.',
      tool_calls: [{ id: 'call_7', function: { name: 'read', arguments: '{"path":"a.txt"}' } }],
    });
    expect(answers[1]).toMatchObject({ content: 'It says hi.' });

    const logged = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logged.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['POST', '/v1/chat/completions', 200],
      ['POST', '/v1/chat/completions', 200],
    ]);
    expect(JSON.parse(logged[1].body).messages[0].content).toBe('second');
  });

  it('refuses a directory that is not a run, and --script with --from-run', async () => {
    const io = captureIo();
    expect(await runCli(['--from-run', await createTempDir('not-a-run-')], io)).toBe(2);
    expect(io.err()).toMatch(/not a run directory \(there is no journal\.jsonl\)/);
    const both = captureIo();
    expect(await runCli(['--from-run', 'x', '--script', 'y'], both)).toBe(2);
    expect(both.err()).toMatch(/give --script or --from-run, not both/);
  });
});

import { spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readLatestRunId, runPaths } from '@delta/journal';
import { inspectAgentYaml, recordRun, threeIterations } from './inspect/recorded-run.test-support.js';
import { DELTA_BIN, runDelta } from './test-support.js';

afterEach(cleanupTestResources);

const quote = (value: string) => `'${value.replace(/'/g, `'"'"'`)}'`;

/** Runs `delta` inside a pseudo-terminal (util-linux `script`), so stdout and stderr are a terminal. */
function runInTerminal(
  args: string[],
  env: Record<string, string>,
  onOutput?: (output: string) => void,
): Promise<{ exitCode: number | null; output: string }> {
  const command = [process.execPath, DELTA_BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const environment: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color', ...env };
    delete environment.NO_COLOR;
    if (env.NO_COLOR !== undefined) environment.NO_COLOR = env.NO_COLOR;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: environment, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const heard = (chunk: Buffer) => {
      output += chunk;
      onOutput?.(output);
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, output }));
  });
}

const slowScript: ScriptStep[] = [
  {
    content: 'Taking a nap first.',
    tool_calls: [{ id: 'call_slow', name: 'slow', arguments: { seconds: '1' } }],
    usage: { prompt_tokens: 400, completion_tokens: 100 },
  },
  { content: 'Rested and done.', usage: { prompt_tokens: 600, completion_tokens: 20 } },
];

async function terminalRun(env: Record<string, string> = {}) {
  const server = await startFakeLlm({ script: slowScript });
  const agent = await createTempAgent({ agentYaml: inspectAgentYaml });
  return runInTerminal(['run', '--agent', agent, '-m', 'nap', '-w', join(agent, 'workspaces', 'W001')], {
    DELTA_API_KEY: 'test-key',
    DELTA_BASE_URL: server.baseUrl,
    ...env,
  });
}

describe('progress on a terminal', () => {
  it('shows a live status line with the iteration, the running tool, tokens and cost, and summaries above it', async () => {
    const { exitCode, output } = await terminalRun();
    expect(exitCode).toBe(0);
    // The status line is redrawn in place (carriage return, clear line) while the tool runs.
    const frames = output.split('\r\u001b[2K').map((frame) => frame.replace(/\u001b\[[0-9;]*m/g, ''));
    expect(frames.some((frame) => /iteration 1\/30 · running slow \d/.test(frame))).toBe(true);
    expect(frames.some((frame) => /iteration 1\/30 · running slow .* · 500 tokens · ~0\.0020 USD/.test(frame))).toBe(true);
    expect(frames.some((frame) => frame.includes('iteration 1/30 · thinking'))).toBe(true);
    const plain = output.replace(/\u001b\[[0-9;]*[mK]/g, '').replace(/\r/g, '');
    expect(plain).toContain('[1] ● Taking a nap first.');
    expect(plain).toMatch(/\[1\] ✓ slow \(exit 0, 1\.\d+s\)/);
    expect(plain).toMatch(/COMPLETED 2 iterations · 1,120 tokens · ~0\.0037 USD · \d/);
    expect(plain).toContain('Rested and done.');
    expect(output).toMatch(/\u001b\[3\dm/);
    // The plain progress lines are not printed on a terminal.
    expect(plain).not.toContain('thinking...');
  });

  it('shows a streamed answer (llm.stream: true) as it arrives, before the server has sent all of it', async () => {
    // 64 pieces of 64 bytes, 20 ms apart: the answer is on the screen long before its last piece is sent.
    const server = await startFakeLlm({ script: [{ large: { bytes: 4096, chunk_bytes: 64, chunk_delay_ms: 20 } }] });
    const agent = await createTempAgent({
      agentYaml: { name: 'streamer', llm: { model: 'm', stream: true }, tools: [{ name: 'echo', description: 'Echo', exec: 'echo hi' }] },
    });
    // The server runs in this process: its response's end is heard here, as the terminal's output is.
    let answered = false;
    const finished = () => {
      answered = true;
    };
    subscribe('http.server.response.finish', finished);
    let shownWhileSending: boolean | undefined;
    try {
      const { exitCode, output } = await runInTerminal(
        ['run', '--agent', agent, '-m', 'stream', '-w', join(agent, 'workspaces', 'W001')],
        { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl },
        (text) => {
          if (shownWhileSending === undefined && /● x{64}/.test(text.replace(/\u001b\[[0-9;]*[mK]/g, ''))) shownWhileSending = !answered;
        },
      );
      expect(exitCode, output).toBe(0);
      expect(server.requests[0]!.body.stream).toBe(true);
      expect(shownWhileSending).toBe(true);
      const plain = output.replace(/\u001b\[[0-9;]*[mK]/g, '').replace(/\r/g, '');
      // Written once as it arrived, not again when the answer was complete; then the answer on stdout.
      expect(plain.match(/\[1\] ● x+\n/g)).toEqual([`[1] ● ${'x'.repeat(4096)}\n`]);
      expect(plain).toMatch(/COMPLETED 1 iteration/);
    } finally {
      unsubscribe('http.server.response.finish', finished);
    }
  });

  it('uses no colour when NO_COLOR is set', async () => {
    const { exitCode, output } = await terminalRun({ NO_COLOR: '1' });
    expect(exitCode).toBe(0);
    expect(output).toContain('running slow');
    expect(output).not.toMatch(/\u001b\[\d+(;\d+)*m/);
  });
});

describe('progress when stdout is not a terminal', () => {
  it('keeps the plain progress lines on stderr, with nothing decorative', async () => {
    const { result } = await recordRun(threeIterations);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('All done: a.txt says alpha.\n');
    expect(result.stderr).toContain('[1] thinking...');
    expect(result.stderr).toContain('[2] ← fail: exit 7');
    expect(result.stderr).not.toContain('\u001b');
  });

  it('prints nothing but the answer with -q', async () => {
    const { result } = await recordRun(threeIterations, { args: ['-q'] });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('All done: a.txt says alpha.\n');
    expect(result.stderr).toBe('');
  });

  it('prints every journal event as written, then the outcome, with --json', async () => {
    const { result, workDir } = await recordRun(threeIterations, { args: ['--json', '-q'] });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const journal = readFileSync(runPaths(workDir, readLatestRunId(workDir)!).journal, 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.slice(0, -1)).toEqual(journal);
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      type: 'OUTCOME',
      run_id: readLatestRunId(workDir),
      work_dir: workDir,
      status: 'COMPLETED',
      exit_code: 0,
      final_answer: 'All done: a.txt says alpha.',
    });
    expect(result.stderr).toBe('');
  });

  it('prints only the events of this engine invocation with delta continue --json', async () => {
    const { workDir } = await recordRun([{ content: 'First answer.' }]);
    const server = await startFakeLlm({ script: [{ content: 'Second answer.' }] });
    // A new server: the run's recorded endpoint is the first one's, so --base-url names it (an environment variable would not).
    const result = await runDelta(['continue', '-w', workDir, '-m', 'And again', '--json', '--base-url', server.baseUrl], {
      env: { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl },
    });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const journal = readFileSync(runPaths(workDir, readLatestRunId(workDir)!).journal, 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.slice(0, -1)).toEqual(journal.slice(journal.length - lines.length + 1));
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'ENGINE_START', seq: 5 });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'OUTCOME', status: 'COMPLETED', final_answer: 'Second answer.' });
  });
});

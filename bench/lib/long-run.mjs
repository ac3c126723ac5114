// A long run as a user runs one (issue 45 item 6): the default sandbox, one `echo` tool, the default
// context (the system prompt and the whole journal), and the model a scripted server in a process of its
// own (`delta-fake-llm`), so that nothing the bench does shares the engine's clock or the server's event
// loop. An iteration's wall time is the time between two consecutive THOUGHT events of the journal (the
// model's answer k-1 recorded to answer k recorded: the tool call, the journal writes, the request built
// and sent, the server's answer read), so it includes the server's time, as the run sees it.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempAgent, createTempDir } from '@delta/testkit';
import { deltaBin, launcherNodeFlags, root, run } from './processes.mjs';

const fakeLlmBin = join(root, 'packages/testkit/bin/delta-fake-llm.js');

/** Starts `delta-fake-llm --script FILE` in its own process; resolves once it prints its DELTA_BASE_URL. */
function startServerProcess(scriptFile) {
  const child = spawn(process.execPath, [fakeLlmBin, '--script', scriptFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`delta-fake-llm exited ${code} before listening:\n${output}`)));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /DELTA_BASE_URL=(\S+)/.exec(output);
      if (!match) return;
      child.removeAllListeners('exit');
      const exited = new Promise((done) => child.once('exit', done));
      resolve({
        baseUrl: match[1],
        async close() {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

/**
 * One `delta run` of `iterations` model calls (each but the last calls the `echo ok` tool) with the bin
 * given. Returns each iteration's wall time in ms (index 0: iteration 2), the mean wall time of the first and
 * the last `window` iterations, the whole run's wall time and the engine's CPU time.
 */
export async function benchLongRun({ iterations = 400, window = 50, bin = deltaBin }) {
  const directory = await createTempDir('delta-bench-long-');
  const scriptFile = join(directory, 'steps.json');
  const steps = Array.from({ length: iterations - 1 }, () => ({ tool_calls: [{ name: 'step', arguments: {} }] }));
  writeFileSync(scriptFile, JSON.stringify([...steps, { content: 'done' }]));
  const agent = await createTempAgent({
    agentYaml: {
      name: 'bench-long',
      llm: { model: 'bench-model' },
      // No sandbox: key: the default sandbox, as users get it.
      tools: [{ name: 'step', description: 'One trivial step', exec: 'echo ok' }],
    },
  });
  const work = join(directory, 'ws');
  const server = await startServerProcess(scriptFile);
  let result;
  try {
    result = await run(
      process.execPath,
      [
        ...launcherNodeFlags(),
        bin,
        'run',
        '--agent',
        agent,
        '-m',
        'Call the tool until told otherwise.',
        '-w',
        work,
        '--max-iterations',
        String(iterations + 1),
        '-y',
      ],
      { env: { DELTA_API_KEY: 'bench-key', DELTA_BASE_URL: server.baseUrl }, measureRss: true },
    );
  } finally {
    await server.close();
  }
  if (result.code !== 0) throw new Error(`delta run exited ${result.code}:\n${result.stderr.slice(-4000)}`);
  const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
  const thoughts = readFileSync(join(work, '.delta', runId, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"THOUGHT"'))
    .map((line) => Date.parse(JSON.parse(line).timestamp));
  if (thoughts.length !== iterations) throw new Error(`expected ${iterations} THOUGHT events, the journal has ${thoughts.length}`);
  const perIteration = thoughts.slice(1).map((at, index) => at - thoughts[index]);
  return {
    perIteration,
    // The mean of each window (its span over its length): the timestamps are whole milliseconds, so the
    // median of single iterations could only say 5, 5.5 or 6 ms.
    early: (thoughts[window] - thoughts[0]) / window,
    late: (thoughts.at(-1) - thoughts.at(-1 - window)) / window,
    wallMs: result.wallMs,
    cpuMs: result.cpuMs,
  };
}

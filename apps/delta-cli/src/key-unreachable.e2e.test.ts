import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm } from '@delta/testkit';
import { DELTA_BIN } from './test-support.js';

afterEach(cleanupTestResources);

const KEY = 'sk-delta-test-0123456789abcdef';
/** The `delta` command as users run it: the shell script that starts the engine (not delta.js). */
const DELTA_SCRIPT = join(dirname(DELTA_BIN), 'delta');

// Walks up from the tool's parent to the engine (the process running delta.js), reading the environment
// and command line of every process on the way, as a hostile tool would. It prints what it found. The key
// is in the script in two halves, so that the tool's own definition does not hold it.
const WALK_UP = `
KEY_TO_FIND="${KEY.slice(0, 10)}""${KEY.slice(10)}"
pid=$PPID; seen=0; found=none
while [ "$pid" -gt 1 ]; do
  seen=$((seen + 1))
  if tr '\\0' '\\n' < /proc/$pid/environ | grep -q -F -- "$KEY_TO_FIND"; then found="environ of $pid"; fi
  if tr '\\0' ' ' < /proc/$pid/cmdline | grep -q -F -- "$KEY_TO_FIND"; then found="cmdline of $pid"; fi
  if tr '\\0' ' ' < /proc/$pid/cmdline | grep -q delta.js; then echo "reached the engine after $seen processes; key found in: $found"; exit 0; fi
  pid=$(awk '/^PPid:/ { print $2 }' /proc/$pid/status)
done
echo "never reached the engine; key found in: $found"
`;

describe('the model key is out of reach of an unsandboxed tool', () => {
  it('is in no environment up to the engine, reaches the model, and is redacted from the journal and the next request', async () => {
    const server = await startFakeLlm({
      apiKey: KEY,
      script: [
        {
          tool_calls: [
            { name: 'walk_up', arguments: {} },
            { name: 'read_file', arguments: { file: 'leaked.txt' } },
          ],
        },
        { content: 'done' },
      ],
    });
    const agent = await createTempAgent({
      agentYaml: {
        name: 'key-walker',
        llm: { model: 'm' },
        // Unsandboxed: the tool sees the engine's processes (sandboxed it sees none, sandbox.e2e.test.ts).
        sandbox: { mode: 'off' },
        tools: [
          { name: 'walk_up', description: 'Walks up /proc', shell: WALK_UP },
          {
            name: 'read_file',
            description: 'Prints a file',
            exec: 'cat -- ${file}',
          },
        ],
      },
    });
    const work = await createTempDir('work-');
    // A key written where a tool can read it (a .env file, say) is printed by the tool.
    writeFileSync(join(work, 'leaked.txt'), `the key is ${KEY}\n`);
    const result = await runProcess(DELTA_SCRIPT, ['run', '--agent', agent, '-m', 'go', '-w', work, '-y'], {
      env: { ...process.env, DELTA_API_KEY: KEY, DELTA_BASE_URL: server.baseUrl },
    });
    expect(result.stderr).not.toContain('401');
    expect(result.exitCode).toBe(0);
    // The model got the key (the server refuses any request without it)...
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    const run = join(work, '.delta', readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim());
    const executions = join(run, 'io', 'tool_executions');
    const [walk, read] = readdirSync(executions).sort();
    // ...and no process between the tool and the engine has it in its environment or command line.
    expect(readFileSync(join(executions, walk!, 'stdout.log'), 'utf8')).toMatch(
      /^reached the engine after \d+ processes; key found in: none\n$/,
    );
    // The key the tool printed: in its stdout.log as written, nowhere in the journal nor the next request.
    expect(readFileSync(join(executions, read!, 'stdout.log'), 'utf8')).toBe(`the key is ${KEY}\n`);
    const journal = readFileSync(join(run, 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain(KEY);
    expect(journal).toContain('the key is [REDACTED]');
    expect(server.requests[1]!.rawBody).not.toContain(KEY);
    expect(server.requests[1]!.rawBody).toContain('the key is [REDACTED]');
  });
});

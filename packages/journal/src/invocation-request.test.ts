import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRunDirectories,
  readInvocationRequest,
  readInvocationRequestBytes,
  REQUEST_DELTA_FILE,
  REQUEST_FILE,
  runPaths,
  InvocationRequestRecorder,
  type RunPaths,
} from './index.js';
import { MAX_DELTA_CHAIN } from './invocation-request.js';

const dirs: string[] = [];
function run(): RunPaths {
  const dir = mkdtempSync(join(tmpdir(), 'delta-requests-'));
  dirs.push(dir);
  const paths = runPaths(dir, '20260101_000000_abcdef');
  createRunDirectories(paths);
  return paths;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tools = [{ type: 'function', function: { name: 'step', description: 'One step', parameters: { type: 'object', properties: {} } } }];

/** A request body as the engine sends it: messages last, so that a longer conversation shares the start of a shorter one. */
function body(messages: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ model: 'm', ...extra, tools, messages });
}

function conversation(turns: number, text = 'observation'): unknown[] {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a test agent.' },
    { role: 'user', content: 'Go.' },
  ];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: 'step', arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${turn}`, content: `${text} ${turn}` });
  }
  return messages;
}

function recordKind(paths: RunPaths, id: string): string[] {
  return readdirSync(join(paths.invocationsDir, id)).sort();
}

describe('invocation request records', () => {
  it('copies the first request whole and stores later ones as what is new, each rebuilt byte for byte', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    const sent: string[] = [];
    for (let turn = 0; turn < 30; turn += 1) {
      const id = `${String(turn + 1).padStart(4, '0')}_aaaaaa`;
      const request = body(conversation(turn));
      sent.push(request);
      requests.write(id, request);
      expect(recordKind(paths, id)).toEqual([turn === 0 ? REQUEST_FILE : REQUEST_DELTA_FILE]);
    }
    for (const [turn, request] of sent.entries())
      expect(readInvocationRequest(paths, `${String(turn + 1).padStart(4, '0')}_aaaaaa`)).toBe(request);
    // Each delta holds only the new turn: the records grow linearly, not quadratically.
    const last = JSON.parse(readFileSync(join(paths.invocationsDir, '0030_aaaaaa', REQUEST_DELTA_FILE), 'utf8'));
    expect(last).toMatchObject({ format: 'delta-engine/request-delta@1', base: '0029_aaaaaa', bytes: Buffer.byteLength(sent[29]!) });
    expect(last.suffix.length).toBeLessThan(300);
    expect(Buffer.from(sent[29]!).subarray(0, last.prefix_bytes).equals(Buffer.from(sent[28]!).subarray(0, last.prefix_bytes))).toBe(true);
  });

  it('takes the body as UTF-8 bytes, even a view its caller overwrites with the next request', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    const reused = Buffer.alloc(1 << 16);
    const sent: string[] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      const request = body(conversation(turn, 'ünïcode 🙂'));
      const length = reused.write(request, 0, 'utf8');
      requests.write(`000${turn + 1}_iiiiii`, reused.subarray(0, length));
      sent.push(request);
      expect(recordKind(paths, `000${turn + 1}_iiiiii`)).toEqual([turn === 0 ? REQUEST_FILE : REQUEST_DELTA_FILE]);
    }
    reused.fill(0);
    for (const [turn, request] of sent.entries()) expect(readInvocationRequest(paths, `000${turn + 1}_iiiiii`)).toBe(request);
  });

  it('keeps multi-byte characters exact when the shared start ends next to them', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    const texts = ['é', '日本', '🙂', '🙃', 'a🙂b', '\u2028', '"\\\n'];
    const sent: string[] = [];
    texts.forEach((text, index) => {
      // Each last message differs from the previous one right after "x": 🙂 and 🙃 share their first UTF-16 unit.
      const request = body([...conversation(0).slice(0, 1), { role: 'user', content: `x${text}` }]);
      sent.push(request);
      requests.write(`000${index}_bbbbbb`, request);
    });
    sent.forEach((request, index) => {
      expect(readInvocationRequestBytes(paths, `000${index}_bbbbbb`).equals(Buffer.from(request, 'utf8'))).toBe(true);
    });
  });

  it('copies the request whole when a pre_llm_request override changed earlier messages', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    const first = body(conversation(5));
    requests.write('0001_cccccc', first);
    // The hook rewrote the system prompt and dropped a turn: almost nothing is shared.
    const overridden = JSON.parse(body(conversation(6)));
    overridden.messages[0].content = 'A different system prompt written by the hook.';
    overridden.messages.splice(2, 2);
    const second = JSON.stringify({ ...overridden, temperature: 0 });
    requests.write('0002_cccccc', second);
    expect(recordKind(paths, '0002_cccccc')).toEqual([REQUEST_FILE]);
    expect(readFileSync(join(paths.invocationsDir, '0002_cccccc', REQUEST_FILE), 'utf8')).toBe(second);
    // The run goes back to the unmodified payload: a delta again, against the whole copy.
    const third = body(conversation(7));
    requests.write('0003_cccccc', third);
    expect([first, second, third].map((_, index) => readInvocationRequest(paths, `000${index + 1}_cccccc`))).toEqual([
      first,
      second,
      third,
    ]);
  });

  it('copies the request whole when the previous record changed on disk (even to the same length), or in a new recorder', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    requests.write('0001_dddddd', body(conversation(1)));
    writeFileSync(join(paths.invocationsDir, '0001_dddddd', REQUEST_FILE), body(conversation(1, 'edited')));
    const second = body(conversation(2));
    requests.write('0002_dddddd', second);
    expect(recordKind(paths, '0002_dddddd')).toEqual([REQUEST_FILE]);
    expect(readInvocationRequest(paths, '0002_dddddd')).toBe(second);
    // A delta, then the same number of bytes changed in it: the next request is copied whole again.
    requests.write('0003_dddddd', body(conversation(3)));
    expect(recordKind(paths, '0003_dddddd')).toEqual([REQUEST_DELTA_FILE]);
    const deltaFile = join(paths.invocationsDir, '0003_dddddd', REQUEST_DELTA_FILE);
    const edited = readFileSync(deltaFile, 'utf8').replace('observation 3', 'OBSERVATION 3');
    expect(Buffer.byteLength(edited)).toBe(statSync(deltaFile).size);
    writeFileSync(deltaFile, edited);
    requests.write('0004_dddddd', body(conversation(4)));
    expect(recordKind(paths, '0004_dddddd')).toEqual([REQUEST_FILE]);
    // A recorder of its own (a new engine process) starts with a whole copy.
    new InvocationRequestRecorder(paths).write('0005_dddddd', body(conversation(5)));
    expect(recordKind(paths, '0005_dddddd')).toEqual([REQUEST_FILE]);
    expect(readInvocationRequest(paths, '0004_dddddd')).toBe(body(conversation(4)));
    expect(readInvocationRequest(paths, '0005_dddddd')).toBe(body(conversation(5)));
  });

  it('starts a new whole copy after MAX_DELTA_CHAIN deltas, so a reader never walks far', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    const ids = Array.from({ length: MAX_DELTA_CHAIN + 3 }, (_, index) => `${String(index + 1).padStart(4, '0')}_eeeeee`);
    for (const [index, id] of ids.entries()) requests.write(id, body(conversation(index)));
    const whole = ids.filter((id) => existsSync(join(paths.invocationsDir, id, REQUEST_FILE)));
    expect(whole).toEqual([ids[0], ids[MAX_DELTA_CHAIN + 1]]);
    expect(readInvocationRequest(paths, ids.at(-1)!)).toBe(body(conversation(ids.length - 1)));
    expect(readInvocationRequest(paths, ids[MAX_DELTA_CHAIN]!)).toBe(body(conversation(MAX_DELTA_CHAIN)));
  });

  it('writes one record when a retried call sends the same body again, and replaces it when the body differs', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    requests.write('0001_ffffff', body(conversation(1)));
    requests.write('0002_ffffff', body(conversation(2)));
    requests.write('0002_ffffff', body(conversation(2)));
    expect(recordKind(paths, '0002_ffffff')).toEqual([REQUEST_DELTA_FILE]);
    expect(readInvocationRequest(paths, '0002_ffffff')).toBe(body(conversation(2)));
    requests.write('0002_ffffff', body(conversation(2), { temperature: 1 }));
    expect(recordKind(paths, '0002_ffffff')).toEqual([REQUEST_FILE]);
    expect(readInvocationRequest(paths, '0002_ffffff')).toBe(body(conversation(2), { temperature: 1 }));
  });

  it('is rebuilt with standard tools: head -c on the base and jq on the delta', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    const first = body(conversation(3, 'ünïcode 🙂'));
    const second = body(conversation(4, 'ünïcode 🙂'));
    requests.write('0001_gggggg', first);
    requests.write('0002_gggggg', second);
    const dir = paths.invocationsDir;
    const script =
      'd="$1/0002_gggggg/request.delta.json"; ' +
      'head -c "$(jq -r .prefix_bytes "$d")" "$1/$(jq -r .base "$d")/request.json"; jq -j .suffix "$d"';
    const rebuilt = execFileSync('sh', ['-c', script, 'sh', dir]);
    expect(rebuilt.equals(Buffer.from(second, 'utf8'))).toBe(true);
  });

  it('names the file when a record is missing or does not add up', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    expect(() => readInvocationRequest(paths, '0009_hhhhhh')).toThrow(/invocation 0009_hhhhhh has no request record/);
    requests.write('0001_hhhhhh', body(conversation(1)));
    requests.write('0002_hhhhhh', body(conversation(2)));
    const deltaFile = join(paths.invocationsDir, '0002_hhhhhh', REQUEST_DELTA_FILE);
    const delta = JSON.parse(readFileSync(deltaFile, 'utf8'));
    writeFileSync(deltaFile, JSON.stringify({ ...delta, prefix_bytes: delta.prefix_bytes + 1 }));
    expect(() => readInvocationRequest(paths, '0002_hhhhhh')).toThrow(
      /request\.delta\.json: the rebuilt request is \d+ bytes, but the record says/,
    );
    writeFileSync(deltaFile, JSON.stringify({ ...delta, base: '0007_hhhhhh' }));
    expect(() => readInvocationRequest(paths, '0002_hhhhhh')).toThrow(/its base invocation 0007_hhhhhh has no request record/);
    writeFileSync(deltaFile, JSON.stringify({ ...delta, base: '0002_hhhhhh' }));
    expect(() => readInvocationRequest(paths, '0002_hhhhhh')).toThrow(/loops back/);
    expect(statSync(deltaFile).isFile()).toBe(true);
  });

  it('names the file and the field when a delta is not JSON or has a wrong field', () => {
    const paths = run();
    const requests = new InvocationRequestRecorder(paths);
    requests.write('0001_iiiiii', body(conversation(1)));
    requests.write('0002_iiiiii', body(conversation(2)));
    const deltaFile = join(paths.invocationsDir, '0002_iiiiii', REQUEST_DELTA_FILE);
    const delta = JSON.parse(readFileSync(deltaFile, 'utf8'));
    const failure = () => {
      try {
        readInvocationRequest(paths, '0002_iiiiii');
      } catch (error) {
        return error as { code: string; message: string; file: string; field?: string };
      }
      throw new Error('the damaged record was read');
    };
    writeFileSync(deltaFile, JSON.stringify({ ...delta, base: '../0001_iiiiii', prefix_bytes: -1 }));
    expect(failure()).toMatchObject({
      code: 'INVOCATION_REQUEST_INVALID',
      file: deltaFile,
      field: 'base',
      message:
        `${deltaFile} does not have the expected shape:\n` +
        '  - field base: must name an earlier invocation of the same run\n' +
        '  - field prefix_bytes: Too small: expected number to be >=0',
    });
    writeFileSync(deltaFile, '{"format": ');
    expect(failure()).toMatchObject({
      code: 'INVOCATION_REQUEST_INVALID',
      message: expect.stringMatching(/request\.delta\.json is not valid JSON: /),
    });
  });
});

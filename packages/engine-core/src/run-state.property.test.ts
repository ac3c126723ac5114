import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationOf, foldEvents, JournalReader, JournalWriter, readJournal, type NewJournalEvent, type RunState } from '@delta/journal';
import { cleanupTempDirs, createTempDir, seededRandom } from '@delta/testkit';
import { oracleState } from './run-state-oracle.test-support.js';

/**
 * The run's state is a fold over its journal's events, and updating it incrementally is only an
 * optimisation: random sequences of operations on a real file (appends, torn lines and their repairs,
 * replaced files, truncations, same-length edits anywhere) and after each step, (a) the incremental
 * JournalReader gives what a fresh readJournal gives, or the same error; (b) its state, and the state the
 * JournalWriter applied event by event, equal the fold from scratch of the file's events; (c) that fold
 * says what the events say, computed the plain way (run-state-oracle.test-support.ts).
 *
 * DELTA_TEST_STATE_SEQUENCES sets the number of sequences (1,000 by default); DELTA_TEST_STATE_SEED the first seed.
 */
const SEQUENCES = Number(process.env.DELTA_TEST_STATE_SEQUENCES ?? 1000);
const FIRST_SEED = Number(process.env.DELTA_TEST_STATE_SEED ?? 17_000);
const STEPS = 24;

afterAll(cleanupTempDirs);

const TEXTS = ['ok', 'ünïcödé ✓ 日本語 🙂', 'line\nbreak "quoted"', 'x'.repeat(3000), 'done', ''];

/** Events a run could journal, with the calls the last THOUGHT made answered, asked about, or not. */
function nextEvent(random: () => number, run: { iteration: number; calls: string[] }): NewJournalEvent {
  const text = `${TEXTS[Math.floor(random() * TEXTS.length)]} ${Math.floor(random() * 1000)}`;
  const call = run.calls[Math.floor(random() * run.calls.length)] ?? `stray${Math.floor(random() * 9)}`;
  const roll = random();
  const iteration = Math.max(1, run.iteration);
  if (roll < 0.15) return { type: 'USER_MESSAGE', content: text };
  if (roll < 0.35) {
    run.iteration += 1;
    run.calls = Array.from({ length: Math.floor(random() * 4) }, (_, index) => `c${run.iteration}_${index}`);
    const tool_calls = run.calls.map((id, index) => ({ id, name: index === 1 ? 'ask_human' : 'step', arguments: `{"n":${index}}` }));
    return { type: 'THOUGHT', iteration: run.iteration, content: random() < 0.3 ? null : text, tool_calls, llm_invocation_ref: 'inv' };
  }
  if (roll < 0.45) return { type: 'ACTION_REQUEST', iteration, action_id: call, tool_name: 'step', tool_args: {} };
  if (roll < 0.65) {
    return {
      type: 'ACTION_RESULT',
      iteration,
      action_id: call,
      tool_name: 'step',
      status: 'SUCCESS',
      observation_content: text,
      exit_code: 0,
    };
  }
  if (roll < 0.7) return { type: 'HUMAN_INPUT_REQUEST', iteration, action_id: call, prompt: text };
  if (roll < 0.75) return { type: 'HUMAN_INPUT_RECEIVED', iteration, action_id: call, response: text };
  if (roll < 0.82) return { type: 'HOOK_EXECUTION_AUDIT', iteration, hook_name: 'on_iteration_end', status: 'SUCCESS', io_path_ref: 'h' };
  if (roll < 0.88) return { type: 'SYSTEM_MESSAGE', level: 'INFO', content: text };
  if (roll < 0.94) return { type: 'ENGINE_START', run_id: 'r', agent_home: '/a', work_dir: '/w' };
  return { type: 'ENGINE_END', run_id: 'r', status: random() < 0.5 ? 'COMPLETED' : 'WAITING_FOR_INPUT', final_iteration: run.iteration };
}

/** The state as plain data (lists as arrays), for a deep comparison. */
function plain(state: RunState) {
  const { messages, json, turns, open, hasTask } = state.conversation;
  return {
    ...state,
    events: state.events.toArray(),
    conversation: { hasTask, messages: messages.toArray(), json: json.toArray(), turns: turns.toArray(), open },
  };
}

/** The state's derived values in the oracle's terms. */
function derived(state: RunState) {
  const conversation = conversationOf(state);
  const task = conversation.hasTask ? conversation.messages[0] : undefined;
  const turns = conversation.turns.map((turn) => ({
    iteration: turn.iteration,
    messages: conversation.messages.slice(turn.start, turn.end),
  }));
  const { version, lastSeq, iterations, hookRuns, finalAnswer, pendingCalls, lastEnd } = state;
  return { version, lastSeq, iterations, hookRuns, finalAnswer, pendingCalls, lastEnd, conversation: { task, turns } };
}

function outcome<T>(read: () => T): { value: T } | { error: string } {
  try {
    return { value: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Fails with a readable diff, but compares with the fast isDeepStrictEqual first. */
function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, what).toEqual(expected);
}

/** Changes one byte to another of the same length: inside a string value (the line stays valid JSON), or anywhere. */
function editSameLength(file: string, random: () => number): void {
  const bytes = readFileSync(file);
  const end = bytes.lastIndexOf(0x0a);
  if (end <= 0) return;
  const letters = Buffer.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
  const anywhere = random() < 0.25;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const at = Math.floor(random() * end);
    const byte = bytes[at]!;
    const inText =
      letters.includes(byte) &&
      bytes[at - 1] !== 0x5c &&
      bytes.subarray(0, at).lastIndexOf(Buffer.from('"content":"')) > bytes.lastIndexOf(0x0a, at);
    if (!(anywhere ? byte >= 0x20 && byte < 0x7f : inText)) continue;
    let replacement = byte;
    while (replacement === byte)
      replacement = anywhere ? 0x20 + Math.floor(random() * 95) : letters[Math.floor(random() * letters.length)]!;
    bytes[at] = replacement;
    writeFileSync(file, bytes);
    return;
  }
}

function runSequence(seed: number, dir: string): void {
  const random = seededRandom(seed);
  const file = join(dir, `journal-${seed}.jsonl`);
  const reader = new JournalReader(file);
  let writer: JournalWriter | undefined = JournalWriter.open(file);
  const run = { iteration: 0, calls: [] as string[] };
  const open = () => {
    try {
      return JournalWriter.open(file);
    } catch {
      return undefined; // A corrupt journal: no engine can resume it until it is put right.
    }
  };
  /** The file as it was before the last edit that made it unreadable, to put it right again. */
  let beforeDamage: Buffer | undefined;
  for (let step = 0; step < STEPS; step += 1) {
    const roll = random();
    const lines = readFileSync(file, 'utf8').split('\n').slice(0, -1);
    if (beforeDamage && roll < 0.5) {
      // Someone puts the damaged journal right.
      writeFileSync(file, beforeDamage);
      writer = undefined;
    } else if (roll < 0.55) {
      // An engine appends; after anything but its own appends it is a new engine, which reads the journal again.
      writer ??= open();
      writer?.append(nextEvent(random, run));
    } else if (roll < 0.63) {
      const next = JSON.stringify({ seq: (writer?.lastSeq ?? 0) + 1, type: 'USER_MESSAGE', timestamp: 't', content: 'torn ü' });
      appendFileSync(file, next.slice(0, 1 + Math.floor(random() * (next.length - 1))));
      writer = undefined;
    } else if (roll < 0.7) {
      // The torn line is repaired (on the next append) by a resumed engine.
      writer = open();
      writer?.append(nextEvent(random, run));
    } else if (roll < 0.76) {
      // Replaced by a journal that shares its start, as a restored backup would.
      const kept = lines.slice(0, Math.floor(lines.length * (0.5 + random() / 2)));
      writeFileSync(`${file}.new`, kept.map((line) => `${line}\n`).join(''));
      renameSync(`${file}.new`, file);
      writer = undefined;
    } else if (roll < 0.8) {
      const size = readFileSync(file).length;
      truncateSync(file, size - Math.floor(random() * Math.min(size + 1, 400)));
      writer = undefined;
    } else {
      const before = readFileSync(file);
      editSameLength(file, random);
      beforeDamage ??= before;
      writer = undefined;
    }

    const fresh = outcome(() => readJournal(file, { tolerateTornTail: true }));
    const where = `seed ${seed}, step ${step}`;
    // (a) The incremental reader gives the same events, or the same error.
    const read = outcome(() => reader.read());
    expectEqual('value' in read ? { value: read.value.events.toArray() } : read, fresh, `${where}: the reader`);
    if (!('value' in fresh) || !('value' in read)) continue;
    beforeDamage = undefined;
    const folded = foldEvents(fresh.value);
    // (b) The incrementally updated states equal the fold from scratch.
    expectEqual(plain(read.value), plain(folded), `${where}: the reader's state`);
    if (writer) expectEqual(plain(writer.state), plain(folded), `${where}: the writer's state`);
    // (c) The fold says what the events say.
    expectEqual(derived(folded), oracleState(fresh.value), `${where}: the fold against the plain computation`);
  }
}

describe('run state: incremental updates equal the fold from scratch', () => {
  it(`holds through ${SEQUENCES} random sequences of ${STEPS} operations on a real journal`, async () => {
    const dir = await createTempDir('delta-run-state-');
    for (let index = 0; index < SEQUENCES; index += 1) runSequence(FIRST_SEED + index, dir);
  }, 600_000);
});

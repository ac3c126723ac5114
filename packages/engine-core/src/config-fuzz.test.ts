import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeltaError } from '@delta/errors';
import { seededRandom } from '@delta/testkit';
import { loadAgent } from './load-agent.js';

// Mutates valid agent files in many small ways; every case must load or fail with a configuration error
// that names a file. Seeded, so a failure is reproducible from its case number.
const SEED = 0x5eed_4;
const CASES = 600;

const VALID_FILES: Record<string, string> = {
  'agent.yaml': `name: fuzz-agent
version: 1.0.0
description: An agent to mutate
llm:
  model: gpt-4o
  temperature: 0.7
  max_tokens: 512
system_prompt: system_prompt.md
max_iterations: 5
imports:
  - ./tools/shared.yaml
tools:
  - name: greet
    description: Greets someone
    exec: "echo Hello \${name}"
    parameters:
      - name: name
        type: string
        description: Who to greet
  - name: count_lines
    shell: "wc -l < \${file}"
`,
  'context.yaml': `sources:
  - type: file
    id: system_prompt
    path: '\${AGENT_HOME}/system_prompt.md'
  - type: file
    id: workspace_guide
    path: '\${CWD}/DELTA.md'
    on_missing: skip
  - type: journal
    id: conversation_history
    max_iterations: 20
`,
  'hooks.yaml': `pre_llm_request:
  command: [sh, '\${AGENT_HOME}/hook.sh']
  timeout_ms: 5000
on_run_end:
  command: [echo, done]
`,
  'tools/shared.yaml': `tools:
  - name: read_file
    description: Read a file
    exec: "cat \${path}"
  - name: write_file
    exec: "tee \${path}"
    stdin: content
`,
};
const MUTABLE = Object.keys(VALID_FILES);

const WRONG_VALUES = [
  '42',
  '-1',
  '3.5',
  'true',
  'null',
  '~',
  '[]',
  '[1, 2]',
  '{}',
  '{a: 1}',
  '""',
  "'x'",
  'yes',
  '0x1F',
  '.inf',
  '!!binary aGk=',
  '*undefined_alias',
  '&anchor 1',
];
const JUNK = [
  ': : :',
  '- - -',
  '{{{',
  ']]',
  '"unterminated',
  "'",
  '\t',
  '&a [*a]',
  '? complex key',
  '|',
  '>-',
  '%YAML 1.2',
  '---',
  '...',
  '@',
  '`',
  '!!python/object:os.system ls',
];

type Mutation = (lines: string[], random: () => number) => string[] | Buffer;

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

const MUTATIONS: Record<string, Mutation> = {
  deleteLine: (lines, random) => lines.filter((_, index) => index !== Math.floor(random() * lines.length)),
  duplicateLine: (lines, random) => {
    const index = Math.floor(random() * lines.length);
    return [...lines.slice(0, index + 1), lines[index]!, ...lines.slice(index + 1)];
  },
  wrongType: (lines, random) => {
    const candidates = lines.map((line, index) => ({ line, index })).filter(({ line }) => /:\s*\S/.test(line));
    if (candidates.length === 0) return lines;
    const { line, index } = pick(candidates, random);
    const copy = [...lines];
    copy[index] = line.replace(/:\s*.*$/, `: ${pick(WRONG_VALUES, random)}`);
    return copy;
  },
  breakIndentation: (lines, random) => {
    const index = Math.floor(random() * lines.length);
    const copy = [...lines];
    const line = copy[index]!;
    copy[index] = pick([` ${line}`, line.trimStart(), `   ${line}`, `\t${line}`, line.replace(/^ {2}/, '')], random);
    return copy;
  },
  unknownKey: (lines, random) => {
    const index = Math.floor(random() * (lines.length + 1));
    const indent = (lines[index] ?? '').match(/^\s*(- )?/)?.[0].replace('- ', '  ') ?? '';
    return [
      ...lines.slice(0, index),
      `${indent}${pick(['colour', 'modle', 'tols', 'imprts', 'x_y', 'on_missing'], random)}: ${pick(WRONG_VALUES, random)}`,
      ...lines.slice(index),
    ];
  },
  junkLine: (lines, random) => {
    const index = Math.floor(random() * (lines.length + 1));
    return [...lines.slice(0, index), pick(JUNK, random), ...lines.slice(index)];
  },
  binaryJunk: (lines, random) => {
    const text = Buffer.from(lines.join('\n'));
    const at = Math.floor(random() * text.length);
    const junk = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 24) }, () => Math.floor(random() * 256)));
    return Buffer.concat([text.subarray(0, at), junk, text.subarray(at)]);
  },
  truncate: (lines, random) => {
    const text = lines.join('\n');
    return text.slice(0, Math.floor(random() * text.length)).split('\n');
  },
  swapLines: (lines, random) => {
    const a = Math.floor(random() * lines.length);
    const b = Math.floor(random() * lines.length);
    const copy = [...lines];
    [copy[a], copy[b]] = [copy[b]!, copy[a]!];
    return copy;
  },
  replaceAll: (_, random) => [pick(['', '- a\n- b', '42', 'just text', '[unclosed', 'null', '{}', '- name: x'], random)],
};
const MUTATION_NAMES = Object.keys(MUTATIONS);

interface FuzzCase {
  file: string;
  mutations: string[];
  content: Buffer;
}

function makeCase(index: number): FuzzCase {
  const random = seededRandom(SEED + index);
  const file = pick(MUTABLE, random);
  let current: string[] | Buffer = VALID_FILES[file]!.split('\n');
  const mutations: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let step = 0; step < count; step += 1) {
    const name = pick(MUTATION_NAMES, random);
    mutations.push(name);
    const lines: string[] = Buffer.isBuffer(current) ? current.toString('latin1').split('\n') : current;
    current = MUTATIONS[name]!(lines, random);
  }
  return { file, mutations, content: Buffer.isBuffer(current) ? current : Buffer.from(current.join('\n')) };
}

const root = mkdtempSync(join(tmpdir(), 'delta-fuzz-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeAgent(index: number, fuzzCase: FuzzCase): string {
  const home = join(root, `case-${index}`);
  mkdirSync(join(home, 'tools'), { recursive: true });
  writeFileSync(join(home, 'system_prompt.md'), 'You are a fuzz target.\n');
  writeFileSync(join(home, 'hook.sh'), 'exit 0\n');
  for (const [name, text] of Object.entries(VALID_FILES)) writeFileSync(join(home, name), name === fuzzCase.file ? fuzzCase.content : text);
  return home;
}

describe(`configuration fuzz (${CASES} seeded cases)`, () => {
  it('every mutation of agent.yaml, context.yaml, hooks.yaml or an imported file loads, or fails as a located configuration error', () => {
    const outcomes = { loaded: 0, refused: 0 };
    const seen = new Set<string>();
    for (let index = 0; index < CASES; index += 1) {
      const fuzzCase = makeCase(index);
      for (const name of fuzzCase.mutations) seen.add(name);
      const home = writeAgent(index, fuzzCase);
      const label = `case ${index} (${fuzzCase.file}: ${fuzzCase.mutations.join(', ')})`;
      try {
        loadAgent(home);
        outcomes.loaded += 1;
      } catch (error) {
        outcomes.refused += 1;
        if (!DeltaError.isInstance(error) || error.kind !== 'configuration') {
          throw new Error(`${label} threw a raw error instead of a configuration error: ${String(error)}\n${(error as Error).stack}`);
        }
        expect(error.message, label).toContain(home);
        expect(error.message, label).not.toMatch(/^\s{4}at /m);
        expect(error.message, label).not.toMatch(/"code":\s*"invalid_/);
      }
    }
    expect(seen.size).toBe(MUTATION_NAMES.length);
    // Both outcomes must occur, or the mutations are too weak or the loader too strict.
    expect(outcomes.loaded).toBeGreaterThan(CASES / 10);
    expect(outcomes.refused).toBeGreaterThan(CASES / 10);
  });
});

import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempDir, loadScript, SERVER_PROFILES, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readMetadata } from '@delta/journal';
import {
  DELTA_BIN,
  EXAMPLES,
  PATH_WITH_EXAMPLE_BINS,
  PATH_WITH_REPOSITORY_BINS,
  copyExample,
  latestRun,
  pathWithoutDelta,
  runProcess,
} from './run-delta.js';

// Every example agent of the learning path runs to COMPLETED against the testkit's imitation of every
// server Delta is documented to work with (docs/models.md), each answering in its own dialect: its ids,
// its extra fields, its usage details, what it refuses, streamed (llm.stream: true) and not. The
// examples' own tests check what they do; this one checks that no server's way of answering stops them.

afterEach(cleanupTestResources);

type Example = (typeof EXAMPLES)[number];

/** How a user runs each example: its task, a workspace to start from, and what follows a pause. */
interface Plan {
  task: string;
  /** A directory of the example copied as the workspace. */
  sampleWorkspace?: string;
  /** The example's scripts, in the order its runs use them. */
  scripts: string[];
  /** The run pauses for a person (101) and this answer continues it. */
  answer?: string;
  env?: Record<string, string>;
}

const PLANS: Record<Example, Plan> = {
  '1-basics/hello-world': { task: 'Greet the world', scripts: ['fake-llm.yaml'] },
  '1-basics/file-reader': {
    task: 'Summarise these files',
    sampleWorkspace: 'sample-workspace',
    scripts: ['fake-llm.yaml'],
  },
  '1-basics/calculator': { task: 'What is the square root of (1234 + 5678) / 3?', scripts: ['fake-llm.yaml'] },
  '2-core-features/interactive-shell': {
    task: 'Prepare a release build directory',
    scripts: ['fake-llm.yaml'],
    env: { PATH: PATH_WITH_REPOSITORY_BINS },
  },
  '2-core-features/python-repl': {
    task: "Summarise this week's sales",
    scripts: ['fake-llm.yaml'],
    env: { PATH: PATH_WITH_REPOSITORY_BINS },
  },
  '2-core-features/memory-folding': { task: 'Review all the records', scripts: ['fake-llm.yaml'] },
  '2-core-features/mcp-files': {
    task: 'Summarise these files',
    sampleWorkspace: 'sample-workspace',
    scripts: ['fake-llm.yaml'],
    env: { PATH: PATH_WITH_EXAMPLE_BINS },
  },
  '3-advanced/delta-agent-generator': {
    task: 'Make an agent that writes haiku, and have it write one about the sea',
    scripts: ['fake-llm.yaml'],
    env: { PATH: pathWithoutDelta() },
  },
  '3-advanced/code-reviewer': { task: 'Review the pricing code', sampleWorkspace: 'sample-workspace', scripts: ['fake-llm.yaml'] },
  '3-advanced/research-agent': {
    task: 'Which battery chemistry should I choose for home storage?',
    scripts: ['fake-llm.yaml', 'fake-llm-answer.yaml'],
    answer: 'Lifetime and safety matter most',
  },
};

function delta(args: string[], baseUrl: string, env: Record<string, string> = {}) {
  return runProcess(process.execPath, [DELTA_BIN, ...args], {
    env: { DELTA_BASE_URL: baseUrl, DELTA_API_KEY: 'fake-key', OPENAI_API_KEY: undefined, ...env },
  });
}

const cases = SERVER_PROFILES.flatMap((profile) =>
  (['not streamed', 'streamed'] as const).flatMap((mode) => EXAMPLES.map((example) => [profile.name, mode, example] as const)),
);

/** `llm.stream: true` in the copied agent's agent.yaml, as a user would write it. */
function streamed(agent: string): void {
  const file = join(agent, 'agent.yaml');
  const text = readFileSync(file, 'utf8');
  if (!/^llm:\n/m.test(text)) throw new Error(`${file} has no llm: block to add stream: true to`);
  writeFileSync(file, text.replace(/^llm:\n/m, 'llm:\n  stream: true\n'));
}

describe('every example under every server profile', () => {
  it('covers every example of the learning path and every profile', () => {
    expect(Object.keys(PLANS).sort()).toEqual([...EXAMPLES].sort());
    expect(SERVER_PROFILES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(cases)('%s, %s: %s runs to COMPLETED', { timeout: 180_000 }, async (profile, mode, example) => {
    const plan = PLANS[example];
    const agent = await copyExample(example);
    if (mode === 'streamed') streamed(agent);
    const script: ScriptStep[] = plan.scripts.flatMap((file) => loadScript(join(agent, file)));
    const server = await startFakeLlm({ script, profile });
    const workspace = join(await createTempDir('ws-'), 'ws');
    if (plan.sampleWorkspace) cpSync(join(agent, plan.sampleWorkspace), workspace, { recursive: true });

    const first = await delta(['run', '--agent', agent, '-w', workspace, '-m', plan.task], server.baseUrl, plan.env);
    let last = first;
    if (plan.answer !== undefined) {
      expect(first.exitCode, first.stderr).toBe(101);
      last = await delta(['continue', '-w', workspace, '-m', plan.answer], server.baseUrl, plan.env);
    }
    expect(last.stderr).toContain('ended: COMPLETED');
    expect(last.exitCode, last.stderr).toBe(0);
    const run = latestRun(workspace);
    expect(readMetadata(join(run.runDir, 'metadata.json')).status).toBe('COMPLETED');
    // The whole script was used: no answer was lost to a refused or repeated request.
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(script.length);
    expect(server.requests.filter((request) => request.status !== 200)).toEqual([]);
    // Streamed when asked, and only then: every request of the run (a sub-agent's are its own) says so.
    const asked = server.requests.filter((request) => request.body?.stream === true).length;
    if (mode === 'streamed') expect(asked).toBeGreaterThan(0);
    else expect(asked).toBe(0);
  });
});

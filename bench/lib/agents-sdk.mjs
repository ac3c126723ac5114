// The OpenAI Agents SDK for JS as a peer of the scale bench: installed from npm on first use into
// bench/.peers/ (ignored by git; it is no dependency of any package), pinned to the versions below, and run
// in a process of its own (lib/agents-sdk-runner.mjs) against the bench's fake model.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './processes.mjs';

/** The exact versions installed (the Agents SDK, and the openai client and zod it runs with). */
export const AGENTS_SDK_PACKAGES = ['@openai/agents@0.20.0', 'openai@7.57.0', 'zod@4.6.7'];
export const peersDir = join(root, 'bench', '.peers');
export const agentsSdkRunner = join(root, 'bench', 'lib', 'agents-sdk-runner.mjs');

/**
 * Installs the Agents SDK into bench/.peers/ unless it is there. Returns undefined when it is usable, or
 * what is missing (and why) when the install failed, for the bench to name as it skips that peer.
 */
export function ensureAgentsSdk(progress) {
  const installed = (name) => existsSync(join(peersDir, 'node_modules', name, 'package.json'));
  if (['@openai/agents', 'openai', 'zod'].every(installed)) return undefined;
  progress(`installing ${AGENTS_SDK_PACKAGES.join(', ')} into ${peersDir} (npm, once)...`);
  mkdirSync(peersDir, { recursive: true });
  if (!existsSync(join(peersDir, 'package.json')))
    writeFileSync(join(peersDir, 'package.json'), `${JSON.stringify({ name: 'delta-bench-peers', private: true }, null, 2)}\n`);
  const result = spawnSync(
    'npm',
    ['install', '--prefix', peersDir, '--save-exact', '--no-audit', '--no-fund', '--loglevel', 'error', ...AGENTS_SDK_PACKAGES],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (result.status === 0 && installed('@openai/agents')) return undefined;
  const why = result.error
    ? result.error.message
    : `npm exited ${result.status}: ${(result.stderr ?? '').trim().split('\n').slice(-3).join(' ')}`;
  return `${AGENTS_SDK_PACKAGES.join(', ')} (not in ${peersDir}; ${why})`;
}

/**
 * The runner's command line: `tasks` runs of one agent, `concurrency` at a time, against `baseUrl`. With
 * `stepArgument`, its function tool `step` takes `{n}` and runs `echo -- step <n>` (the batch agent's tool);
 * without, it takes nothing and runs `echo ok` (the one-run agent's tool).
 */
export function agentsSdkArgs({ baseUrl, tasks, concurrency, stepArgument, maxTurns = 30 }) {
  return [agentsSdkRunner, JSON.stringify({ peers: join(peersDir, 'node_modules'), baseUrl, tasks, concurrency, stepArgument, maxTurns })];
}

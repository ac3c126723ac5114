import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookName } from './hook-names.js';
import type { RunHookOptions } from './run-hook.js';

/** A real agent directory, workspace and run directory in a temp dir, with hook scripts written into the agent. */
export function createHookRun() {
  const root = mkdtempSync(join(tmpdir(), 'delta-hooks-run-'));
  const agentHome = join(root, 'agent');
  const cwd = join(root, 'workspace');
  const runDir = join(cwd, '.delta', 'run-1');
  const hooksDir = join(runDir, 'io', 'hooks');
  for (const dir of [join(agentHome, 'hooks'), hooksDir]) mkdirSync(dir, { recursive: true });
  const journalPath = join(runDir, 'journal.jsonl');
  writeFileSync(journalPath, '');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root };

  return {
    root,
    agentHome,
    cwd,
    runDir,
    hooksDir,
    journalPath,
    env,
    /** Writes an executable `/bin/sh` script into the agent and returns its command, written with ${AGENT_HOME}. */
    script(name: string, body: string): string[] {
      const file = join(agentHome, 'hooks', name);
      writeFileSync(file, `#!/bin/sh\n${body}\n`);
      chmodSync(file, 0o755);
      return [`\${AGENT_HOME}/hooks/${name}`];
    },
    options(name: HookName, command: string[], extra: Partial<RunHookOptions> = {}): RunHookOptions {
      return {
        name,
        definition: { command },
        step: 1,
        hooksDir,
        agentHome,
        cwd,
        env,
        run: { runId: 'run-1', runDir, journalPath, iterationCount: 3 },
        ...extra,
      };
    },
    read(path: string): string {
      return readFileSync(path, 'utf8');
    },
    json(path: string): unknown {
      return JSON.parse(readFileSync(path, 'utf8'));
    },
    cleanup(): void {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type HookRun = ReturnType<typeof createHookRun>;

/** A hook script line that copies the hook's environment, as JSON, into output/env.json. */
export const DUMP_ENV = `node -e 'process.stdout.write(JSON.stringify(process.env))' > "$DELTA_HOOK_IO_PATH/output/env.json"`;

import { fileURLToPath } from 'node:url';
import { runProcess, type ProcessResult } from '@delta/testkit';

/** The built `delta` launcher (turbo builds this package before its tests run). */
export const DELTA_BIN = fileURLToPath(new URL('../bin/delta.js', import.meta.url));

export type DeltaResult = ProcessResult;

const MODEL_SETTINGS = [
  'DELTA_API_KEY',
  'OPENAI_API_KEY',
  'DELTA_BASE_URL',
  'OPENAI_BASE_URL',
  'OPENAI_API_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];

/** The environment of a `delta` under test: this process's, less its model (and trace export) settings, plus `env`. */
export function deltaEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const inherited: Record<string, string | undefined> = { ...process.env };
  for (const name of MODEL_SETTINGS) delete inherited[name];
  return { ...inherited, ...env };
}

/** Runs `delta` as a real process. The model (and trace export) settings of the calling environment are never passed on. */
export function runDelta(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; onSpawn?: (pid: number) => void } = {},
): Promise<DeltaResult> {
  return runProcess(process.execPath, [DELTA_BIN, ...args], { ...options, env: deltaEnv(options.env) });
}

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

/** Runs `delta` as a real process. The model (and trace export) settings of the calling environment are never passed on. */
export function runDelta(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; onSpawn?: (pid: number) => void } = {},
): Promise<DeltaResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of MODEL_SETTINGS) delete env[name];
  return runProcess(process.execPath, [DELTA_BIN, ...args], { ...options, env: { ...env, ...options.env } });
}

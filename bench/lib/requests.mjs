import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readInvocationRequestBytes, runPaths } from '@delta/journal';
import { deltaBin } from './processes.mjs';

const rebuildScript = new URL('./rebuild-request.sh', import.meta.url).pathname;

/**
 * Checks the audit trail of a run against what the server received: every invocation through
 * readInvocationRequestBytes, and the last one through `delta show invocation N --request` and through
 * sh + head + jq alone.
 */
export function checkRequests(result) {
  const paths = runPaths(result.work, result.runDir.split('/').at(-1));
  const ids = readdirSync(paths.invocationsDir).sort();
  const sent = result.rawBodies.map((body) => Buffer.from(body, 'utf8'));
  let exact = 0;
  ids.forEach((id, index) => {
    if (sent[index] && readInvocationRequestBytes(paths, id).equals(sent[index])) exact += 1;
  });
  const last = sent.at(-1);
  const shown = execFileSync(process.execPath, [deltaBin, 'show', 'invocation', String(ids.length), '-w', result.work, '--request'], {
    maxBuffer: 1 << 30,
  });
  let shell;
  try {
    shell = execFileSync(rebuildScript, [paths.invocationsDir, ids.at(-1)], { maxBuffer: 1 << 30 }).equals(last) ? 'exact' : 'DIFFERS';
  } catch (error) {
    shell = `failed (${String(error.message).split('\n')[0]})`;
  }
  const kinds = { whole: 0, delta: 0 };
  for (const id of ids) kinds[readdirSync(join(paths.invocationsDir, id)).includes('request.json') ? 'whole' : 'delta'] += 1;
  return { count: ids.length, exact, cli: shown.equals(last) ? 'exact' : 'DIFFERS', shell, kinds };
}

#!/usr/bin/env node
// A committed shim, so that pnpm links the bin on a fresh install, before dist/ has been built.
import('../dist/cli.js').catch((error) => {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  process.stderr.write('delta-fake-llm: @delta/testkit is not built yet; run `pnpm build` at the repository root.\n');
  process.exitCode = 1;
});

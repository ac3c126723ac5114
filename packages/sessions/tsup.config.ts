import { defineConfig } from 'tsup';

export default defineConfig({
  // supervisor.js is the entry of the detached session process; it must sit next to index.js.
  entry: { index: 'src/index.ts', supervisor: 'src/supervisor.js' },
  format: ['esm'],
  target: 'node20',
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: false,
  // The few functions of @delta/process-identity used here are inlined from its sources, so that
  // importing this package does not load zod (which process-identity needs only for process.json).
  noExternal: ['@delta/process-identity'],
  esbuildOptions(options) {
    options.conditions = ['@delta/source', 'import', 'module', 'node'];
  },
});

import { defineConfig } from 'tsup';

export default defineConfig({
  // launcher-process.js is the program of the tool launcher process; it must sit next to index.js.
  entry: { index: 'src/index.ts', 'launcher-process': 'src/launcher-process.js' },
  format: ['esm'],
  target: 'node20',
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: false,
  // The few functions of @delta/process-identity used here are inlined from its sources, so that neither
  // this package nor the launcher process loads zod (which process-identity needs only to read process.json).
  noExternal: ['@delta/process-identity'],
  esbuildOptions(options) {
    options.conditions = ['@delta/source', 'import', 'module', 'node'];
  },
});

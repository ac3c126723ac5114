import { defineConfig } from 'tsup';

export default defineConfig({
  // supervisor.js is the entry of the detached session process; it must sit next to index.js.
  entry: { index: 'src/index.ts', supervisor: 'src/supervisor.js' },
  format: ['esm'],
  target: 'node20',
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
});

import { defineConfig } from 'tsup';

export default defineConfig({
  // supervisor.js is the detached process behind interpreter sessions; it must sit next to cli.js.
  entry: { cli: 'src/cli.ts', supervisor: 'src/supervisor.ts' },
  format: ['esm'],
  target: 'node20',
  // Bundled so that start-up reads one file instead of resolving packages (see TOOLCHAIN.md).
  noExternal: ['@delta/sessions', '@delta/errors', 'cac'],
  clean: true,
  sourcemap: false,
});

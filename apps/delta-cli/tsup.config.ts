import { defineConfig } from 'tsup';

// One bundled file per entry, with the workspace packages inlined so that `delta --help` loads nothing
// it does not need; the engine (and through it openai) is a separate chunk loaded on demand.
export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: [/^@delta\//, 'cac', 'zod', 'yaml', 'shell-quote'],
  external: ['openai'],
  // Bundle the workspace packages from their sources, so the CLI never depends on their build order.
  esbuildOptions(options) {
    options.conditions = ['@delta/source', 'import', 'module', 'node'];
  },
  banner: {
    js: "import { createRequire as __deltaCreateRequire } from 'node:module'; const require = __deltaCreateRequire(import.meta.url);",
  },
});

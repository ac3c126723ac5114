import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  noExternal: [/^@delta\//, 'cac', 'zod', 'yaml', 'shell-quote', 'eventsource-parser'],
  // Never bundled: the OpenTelemetry SDK (its "module" builds are for bundlers), BullMQ and its Redis client are
  // optional peers, imported only by tracing and by `delta batch --queue` / `delta worker` (optional-packages.ts).
  external: [/^@opentelemetry\//, 'bullmq', 'ioredis'],
  // Bundle the workspace packages from their sources, so the CLI never depends on their build order.
  esbuildOptions(options) {
    options.conditions = ['@delta/source', 'import', 'module', 'node'];
  },
  banner: {
    js: "import { createRequire as __deltaCreateRequire } from 'node:module'; const require = __deltaCreateRequire(import.meta.url);",
  },
};

export default defineConfig([
  // One bundled file per entry, with the workspace packages inlined so that `delta --help` loads nothing
  // it does not need; the engine is a separate chunk loaded on demand.
  { ...shared, entry: ['src/cli.ts'], splitting: true, clean: ['!launcher-process.js'] },
  // The tool launcher's program, which the engine's code looks for beside itself. Built on its own, without
  // splitting: in a chunk shared with the CLI it would load what the CLI needs (zod) and it does not.
  { ...shared, entry: { 'launcher-process': 'src/launcher-process.ts' }, splitting: false, clean: false },
]);

import { defineConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The shared configuration without its 'module' condition: @opentelemetry/api's "module" build imports
// files without their extensions, which only a bundler resolves; Node loads its CommonJS build, as here.
export default defineConfig({
  ...sharedConfig,
  ssr: { resolve: { conditions: ['@delta/source', 'node', 'development|production'] } },
});

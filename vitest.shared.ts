import { defineConfig } from 'vitest/config';

// Tests read package sources through the "@delta/source" export condition, so no build is needed.
// vitest 4 honours only ssr.resolve.conditions for this, and setting it replaces Vite's defaults.
export const sharedConfig = defineConfig({
  ssr: {
    resolve: {
      conditions: ['@delta/source', 'module', 'node', 'development|production'],
    },
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.test-report.json' }]],
  },
});

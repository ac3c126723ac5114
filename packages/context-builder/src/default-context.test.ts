import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, defaultContextYaml } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_YAML } from './manifest.js';

afterEach(cleanupTempDirs);

describe('DEFAULT_CONTEXT_YAML', () => {
  it("is the context.yaml testkit's temp agents get (testkit keeps a copy; this keeps it from drifting)", async () => {
    expect(defaultContextYaml).toBe(DEFAULT_CONTEXT_YAML);
    const agent = await createTempAgent();
    expect(readFileSync(join(agent, 'context.yaml'), 'utf8')).toBe(DEFAULT_CONTEXT_YAML);
  });
});

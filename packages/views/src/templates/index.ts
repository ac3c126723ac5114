import type { AgentTemplate } from './agent-template.js';
import { apiTester } from './api-tester.js';
import { fileOps } from './file-ops.js';
import { helloWorld } from './hello-world.js';
import { minimal } from './minimal.js';

/** The built-in templates, in the order `delta init` offers them; the first is the default. */
export const TEMPLATES: readonly AgentTemplate[] = [minimal, helloWorld, fileOps, apiTester];

export { DEFAULT_CONTEXT_YAML } from './default-context.js';
export type { AgentTemplate } from './agent-template.js';

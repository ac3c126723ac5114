import { relative } from 'node:path';
import type { AgentTemplate } from './agent-template.js';
import { TEMPLATES } from './index.js';

const RULE = '─'.repeat(60);

/** The templates as `delta init` offers them on a terminal, numbered from 1. */
export function templateMenu(): string {
  const lines = TEMPLATES.map((template, index) => `  ${index + 1}) ${template.name.padEnd(12)} ${template.description}\n`);
  return `Templates:\n${lines.join('')}`;
}

/** What `delta init` says when it has written the agent: the files, then how to run it (from `cwd`). */
export function initDoneText(template: AgentTemplate, directory: string, files: readonly string[], cwd: string): string {
  const where = relative(cwd, directory);
  const lines = [
    RULE,
    `[SUCCESS] Agent initialized from the ${template.name} template in ${directory}`,
    RULE,
    '[INFO] Created files:',
    ...files.map((name) => `[INFO]   • ${name}`),
    RULE,
    '[INFO] Next steps:',
    ...(where === '' ? [] : [`  cd ${/\s/.test(where) ? JSON.stringify(where) : where}`]),
    '  echo "DELTA_API_KEY=<your key>" >> .env     # or export DELTA_API_KEY (and DELTA_BASE_URL for another server)',
    '  delta run -y --agent . -m "Your task description here"',
    RULE,
  ];
  return `${lines.join('\n')}\n`;
}

import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { type AgentTemplate, DEFAULT_CONTEXT_YAML, initDoneText, TEMPLATES, templateMenu } from '@delta/views';
import { usageError } from './usage-error.js';

export interface InitFlags {
  template?: string;
  yes?: boolean;
}

function findTemplate(name: string): AgentTemplate {
  const template = TEMPLATES.find((candidate) => candidate.name === name);
  if (!template) {
    throw usageError(
      `There is no template "${name}".`,
      `The templates are: ${TEMPLATES.map((candidate) => candidate.name).join(', ')}. For example: delta init my-agent -t hello-world`,
    );
  }
  return template;
}

/** An agent goes into an empty directory; hidden files such as .git or .env do not count. */
function checkDirectory(directory: string): void {
  if (!existsSync(directory)) return;
  if (!statSync(directory).isDirectory()) {
    throw usageError(`${directory} is a file, not a directory.`, 'Give delta init the name of a new or empty directory.');
  }
  const visible = readdirSync(directory).filter((entry) => !entry.startsWith('.'));
  if (visible.length > 0) {
    const shown = visible.slice(0, 5).join(', ') + (visible.length > 5 ? `, and ${visible.length - 5} more` : '');
    throw usageError(
      `${directory} is not empty (it holds ${shown}); delta init will not overwrite anything.`,
      'Choose a new directory, e.g. `delta init my-agent`, or empty this one first (hidden files such as .git are fine).',
    );
  }
}

async function askForTemplate(): Promise<AgentTemplate> {
  process.stderr.write(templateMenu());
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (;;) {
      const answer = (await prompt.question('Choose a template [1]: ')).trim();
      const chosen =
        answer === '' ? TEMPLATES[0] : (TEMPLATES[Number(answer) - 1] ?? TEMPLATES.find((template) => template.name === answer));
      if (chosen) return chosen;
      process.stderr.write(`"${answer}" is not one of the choices; type a number from 1 to ${TEMPLATES.length} or a template name.\n`);
    }
  } finally {
    prompt.close();
  }
}

async function chooseTemplate(flags: InitFlags): Promise<AgentTemplate> {
  if (flags.template !== undefined) return findTemplate(String(flags.template));
  if (flags.yes === true || !process.stdin.isTTY || !process.stderr.isTTY) return TEMPLATES[0]!;
  return askForTemplate();
}

/** `delta init [dir]`: writes agent.yaml, system_prompt.md and context.yaml from a template. */
export async function initCommand(dir: string | undefined, flags: InitFlags): Promise<number> {
  const directory = resolve(dir ?? '.');
  if (flags.template !== undefined) findTemplate(String(flags.template));
  checkDirectory(directory);
  const template = await chooseTemplate(flags);
  const files: Record<string, string> = {
    'agent.yaml': template.agentYaml(basename(directory) || 'my-agent'),
    'system_prompt.md': template.systemPrompt,
    'context.yaml': DEFAULT_CONTEXT_YAML,
  };
  mkdirSync(directory, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(directory, name), content, { flag: 'wx' });

  process.stdout.write(initDoneText(template, directory, Object.keys(files), process.cwd()));
  return 0;
}

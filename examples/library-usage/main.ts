// Runs an agent from TypeScript with @delta/engine and prints its events as they are written.
// Usage: node dist/main.js <agent-dir> <message> [--base-url URL] [--api-key KEY] [--work-dir DIR]
// Without --base-url/--api-key the engine reads DELTA_BASE_URL/DELTA_API_KEY (or OPENAI_*) and .env files.
import { loadAgent, runAgent } from '@delta/engine';
import { quoteCommandLine, type ExpandedTool } from '@delta/tool-expander';

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const [agentDir = 'agent', message = 'Write a note and read it back'] = process.argv
  .slice(2)
  .filter((arg, index, all) => !arg.startsWith('--') && !all[index - 1]?.startsWith('--'));

// loadAgent validates agent.yaml, its imports and hooks.yaml; mistakes throw a ConfigurationError
// whose message names the file, the field and the fix.
const agent = loadAgent(agentDir);

// Every tool comes out of @delta/tool-expander in one expanded form: show what really runs.
const describeTool = (tool: ExpandedTool) => `tool ${tool.name} (${tool.mode}): ${quoteCommandLine(tool.command)}`;
for (const tool of agent.tools) console.log(describeTool(tool));

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted by SIGINT')));

const baseUrl = option('--base-url');
const apiKey = option('--api-key');
const workDir = option('--work-dir');
const run = runAgent({
  agent,
  message,
  signal: controller.signal,
  ...(baseUrl ? { baseUrl } : {}),
  ...(apiKey ? { apiKey } : {}),
  ...(workDir ? { workDir } : {}),
});

for await (const event of run.events) {
  switch (event.type) {
    case 'THOUGHT':
      console.log(`[${event.seq}] model: ${event.content ?? ''}`);
      break;
    case 'ACTION_REQUEST':
      console.log(`[${event.seq}] call ${event.tool_name} ${JSON.stringify(event.tool_args)}`);
      break;
    case 'ACTION_RESULT':
      console.log(`[${event.seq}] result ${event.status}: ${event.observation_content.trim()}`);
      break;
    default:
      console.log(`[${event.seq}] ${event.type}`);
  }
}

const result = await run.result;
console.log(`status: ${result.status} (exit code ${result.exitCode})`);
if (result.finalAnswer) console.log(`answer: ${result.finalAnswer}`);
console.log(`journal: ${result.paths.journal}`);
process.exitCode = result.exitCode;

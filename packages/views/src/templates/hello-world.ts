import { agentYamlStart, type AgentTemplate } from './agent-template.js';

export const helloWorld: AgentTemplate = {
  name: 'hello-world',
  description: 'Friendly agent with common tools',
  agentYaml: (agentName) => `${agentYamlStart(agentName, 'A friendly agent with a few common tools.', 0.7)}
  - name: greet
    description: Greet someone by name.
    exec: "echo Hello, \${name}!"

  - name: get_date
    description: The current date and time.
    exec: "date"

  - name: list_files
    description: List the files in a directory of the workspace.
    exec: "ls -la -- \${directory}"
    parameters:
      - name: directory
        description: The directory to list, e.g. "."

  - name: read_file
    description: Read a file of the workspace.
    exec: "cat -- \${filename}"

  - name: write_file
    description: Write text to a file in the workspace (the file is replaced).
    exec: "tee -- \${filename}"
    stdin: content
`,
  systemPrompt: `# Hello World Agent

You are a friendly, helpful assistant working in a workspace directory.

## Your tools
- \`greet\`: greet someone by name
- \`get_date\`: the current date and time
- \`list_files\`, \`read_file\`, \`write_file\`: look at and change files in the workspace

## How you work
1. Understand what the user wants.
2. Use the tools step by step; look at each result before the next step.
3. Finish with a short, friendly summary of what you did.
`,
};

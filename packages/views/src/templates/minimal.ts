import { agentYamlStart, type AgentTemplate } from './agent-template.js';

export const minimal: AgentTemplate = {
  name: 'minimal',
  description: 'Basic echo and file write operations',
  agentYaml: (agentName) => `${agentYamlStart(agentName, 'A minimal agent that can print text and write files.', 0.7)}
  - name: echo
    description: Print a message.
    exec: "printf -- '%s\\\\n' \${message}"

  - name: write_file
    description: Write text to a file in the workspace (the file is replaced).
    exec: "tee -- \${filename}"
    stdin: content
`,
  systemPrompt: `# Minimal Agent

You are a minimal assistant. You can print messages with \`echo\` and write files with \`write_file\`.

- Use the tools to do what the user asks; files are written in the current workspace.
- When the task is done, answer with a short summary of what you did.
`,
};

import { agentYamlStart, type AgentTemplate } from './agent-template.js';

export const fileOps: AgentTemplate = {
  name: 'file-ops',
  description: 'File management and organization tools',
  agentYaml: (agentName) => `${agentYamlStart(agentName, 'Manages and organizes the files of its workspace.', 0.3)}
  - name: list_files
    description: List a directory, with sizes and dates.
    exec: "ls -la -- \${directory}"

  - name: find_files
    description: Find files under a directory whose names match a pattern such as "*.txt".
    # find reads an argument starting with - as an expression (-delete) even after its --, so ./ keeps
    # the directory a path; the pattern is -name's own value.
    exec: "find -- ./\${directory} -name \${pattern}"

  - name: read_file
    description: Read a file.
    exec: "cat -- \${filename}"

  - name: write_file
    description: Write text to a file (the file is replaced).
    exec: "tee -- \${filename}"
    stdin: content

  - name: append_file
    description: Add text to the end of a file.
    exec: "tee -a -- \${filename}"
    stdin: content

  - name: make_directory
    description: Create a directory (and its parents).
    exec: "mkdir -p -- \${directory}"

  - name: copy_file
    description: Copy a file.
    exec: "cp -- \${source} \${destination}"

  - name: move_file
    description: Move or rename a file or directory.
    exec: "mv -- \${source} \${destination}"

  - name: delete_file
    description: Delete a file.
    exec: "rm -- \${filename}"

  - name: count_lines
    description: Count the lines of a file.
    shell: "wc -l < \${filename}"
`,
  systemPrompt: `# File Operations Agent

You manage and organize files in your workspace (the current directory).

## Rules
- Look before you change: list or read files before moving, overwriting or deleting them.
- Work only inside the workspace; use relative paths.
- Never delete a file the user did not ask you to delete.
- After changing files, list the result to check it.

Finish with a summary of every file you created, changed, moved or deleted.
`,
};

// `delta tool expand` as a user runs it: the real built CLI against real agent directories.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { runDelta } from './test-support.js';

afterEach(() => cleanupTempDirs());

const AGENT_YAML = `name: expand-demo
llm:
  model: m
tools:
  - name: list_files
    description: List a directory
    exec: "ls -la -- \${directory}"
  - name: run_docker
    shell: "docker run \${options:raw} -- \${image} | tee \${CWD}/docker.log"
    timeout_ms: 600000
  - name: serve
    command: [serve, --quiet]
    parameters:
      - name: port
        inject_as: option
        option_name: --port
        default: "8080"
      - name: root
        description: Directory to serve
        enum: [public, site]
  - name: write_file
    exec: "tee -- \${filename}"
    stdin: content
    parameters:
      - name: content
        description: What to write
  - name: sub_agent
    exec: "delta run --agent \${AGENT_HOME}/helper --message=\${task}"
    pass_model_credentials: true
`;

const EXPANDED_YAML = `tools:
  - name: list_files
    description: List a directory
    command:
      - ls
      - -la
      - --
    timeout_ms: 120000
    parameters:
      - name: directory
        type: string
        inject_as: argument
        position: 0
  - name: run_docker
    command:
      # \${CWD} is filled in by the engine
      - sh
      - -c
      - docker run $2 -- "$3" | tee "$1"/docker.log
      - --
      - \${CWD}
    timeout_ms: 600000
    parameters:
      - name: options
        type: string
        inject_as: argument
        position: 0
      - name: image
        type: string
        inject_as: argument
        position: 1
  - name: serve
    command:
      - serve
      - --quiet
    timeout_ms: 120000
    parameters:
      - name: port
        type: string
        default: "8080"
        inject_as: option
        option_name: --port
      - name: root
        type: string
        enum:
          - public
          - site
        description: Directory to serve
        inject_as: argument
        position: 0
  - name: write_file
    command:
      - tee
      - --
    timeout_ms: 120000
    parameters:
      - name: filename
        type: string
        inject_as: argument
        position: 0
      - name: content
        type: string
        description: What to write
        inject_as: stdin
  - name: sub_agent
    exec:
      # \${AGENT_HOME} is filled in by the engine; \${task} is the model's value for task
      delta run --agent \${AGENT_HOME}/helper --message=\${task}
    timeout_ms: 120000
    pass_model_credentials: true
    parameters:
      - name: task
        type: string
        inject_as: argument
        position: 0
`;

/** No stack frames: `    at fn (file:line:col)` lines. */
const STACK_FRAME = /^\s+at /m;

describe('delta tool expand', () => {
  it('prints every tool of an agent directory in its expanded form, exactly', async () => {
    const agent = await createTempAgent({ agentYaml: AGENT_YAML });
    const result = await runDelta(['tool', 'expand', agent]);
    // Four tools have no description: the model is sent what each runs (the documented default), with no warning.
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(EXPANDED_YAML);
  });

  it('loads tools with no description under --strict too, with no warning, and --schema shows what the model is sent instead', async () => {
    const agent = await createTempAgent({ agentYaml: AGENT_YAML });
    const strict = await runDelta(['tool', 'expand', agent, '--strict']);
    expect(strict.stderr).toBe('');
    expect(strict.exitCode).toBe(0);
    expect(strict.stdout).toBe(EXPANDED_YAML);
    const schema = await runDelta(['tool', 'expand', agent, '--schema', '--strict']);
    expect(schema.exitCode).toBe(0);
    expect(schema.stdout).toContain('      name: write_file\n      description: "Runs: tee -- ${filename}"\n');
    expect(schema.stdout).toContain(
      '      name: run_docker\n      description: "Runs in sh: docker run ${options} -- ${image} | tee ${CWD}/docker.log"\n',
    );
  });

  it('says which ${...} in a command is the model value, the engine, or literal text (command: tools have no placeholders)', async () => {
    const agent = await createTempAgent({
      agentYaml: `name: literal\nllm: {model: m}\ntools:\n  - name: legacy\n    description: Echo a note\n    command: [echo, "\${note}", "\${AGENT_HOME}"]\n    parameters:\n      - name: note\n        inject_as: option\n        option_name: --note\n`,
    });
    const result = await runDelta(['tool', 'expand', agent]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      '    command:\n      # ${AGENT_HOME} is filled in by the engine; ${note} is literal text, passed as written (not a parameter)\n      - echo\n',
    );
  });

  it('accepts the agent.yaml path, or the current directory, with the same output', async () => {
    const agent = await createTempAgent({ agentYaml: AGENT_YAML });
    const byFile = await runDelta(['tool', 'expand', join(agent, 'agent.yaml')]);
    const byCwd = await runDelta(['tool', 'expand'], { cwd: agent });
    expect(byFile).toMatchObject({ exitCode: 0, stdout: EXPANDED_YAML });
    expect(byCwd).toMatchObject({ exitCode: 0, stdout: EXPANDED_YAML });
  });

  it('prints the function schemas the model receives with --schema --json: no engine variables, no credentials flag', async () => {
    const agent = await createTempAgent({ agentYaml: AGENT_YAML });
    const result = await runDelta(['tool', 'expand', agent, '--schema', '--json']);
    expect(result.exitCode).toBe(0);
    const { tools } = JSON.parse(result.stdout) as { tools: Array<{ type: string; function: { name: string; parameters: unknown } }> };
    expect(tools.map((tool) => tool.function.name)).toEqual(['list_files', 'run_docker', 'serve', 'write_file', 'sub_agent', 'ask_human']);
    expect(tools[5]?.function.parameters).toMatchObject({ required: ['prompt'] });
    expect(tools[2]).toEqual({
      type: 'function',
      function: {
        name: 'serve',
        description: 'Runs: serve --quiet --port ${port} ${root}',
        parameters: {
          type: 'object',
          properties: { port: { type: 'string' }, root: { type: 'string', enum: ['public', 'site'], description: 'Directory to serve' } },
          required: ['root'],
          additionalProperties: false,
        },
      },
    });
    // Engine variables are never parameters (a default description may name them, as what the tool runs).
    const parameters = JSON.stringify(tools.map((tool) => tool.function.parameters));
    expect(parameters).not.toContain('AGENT_HOME');
    expect(parameters).not.toContain('CWD');
    expect(result.stdout).not.toContain('credentials');
    expect(result.stdout).not.toContain('timeout_ms');
  });

  it('prints the expanded form as JSON with --json', async () => {
    const agent = await createTempAgent({ agentYaml: AGENT_YAML });
    const result = await runDelta(['tool', 'expand', agent, '--json']);
    const { tools } = JSON.parse(result.stdout) as { tools: Array<Record<string, unknown>> };
    expect(tools[1]).toMatchObject({
      name: 'run_docker',
      command: ['sh', '-c', 'docker run $2 -- "$3" | tee "$1"/docker.log', '--', '${CWD}'],
      timeout_ms: 600000,
    });
    expect(tools[4]).toMatchObject({ name: 'sub_agent', pass_model_credentials: true });
  });

  it('refuses a file that is not an agent.yaml with exit 2 and a hint', async () => {
    const agent = await createTempAgent({ agentYaml: AGENT_YAML });
    const result = await runDelta(['tool', 'expand', join(agent, 'context.yaml')]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Error: ${join(agent, 'context.yaml')} is not an agent.yaml.\n` +
        'Hint: Pass an agent directory or its agent.yaml: delta tool expand ./my-agent/agent.yaml\n',
    );
  });

  it('reports a bad tool definition with exit 2, file:line:column, the field and a hint, and no stack trace', async () => {
    const agent = await createTempAgent({
      agentYaml: 'name: bad\nllm:\n  model: m\ntools:\n  - name: ok\n    exec: "ls"\n  - name: piped\n    exec: "cat ${file} | wc -l"\n',
    });
    const result = await runDelta(['tool', 'expand', agent]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `Error: ${join(agent, 'agent.yaml')}:8:11 tools[1].exec: Shell metacharacter '|' not allowed in exec: mode.`,
    );
    expect(result.stderr).toContain('Hint: Use shell: mode instead');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('reports a bad timeout_ms or pass_model_credentials the same way', async () => {
    const agent = await createTempAgent({
      agentYaml:
        'name: bad\nllm:\n  model: m\ntools:\n  - name: slow\n    exec: "sleep 1"\n    timeout_ms: soon\n    pass_model_credentials: yes please\n',
    });
    const result = await runDelta(['tool', 'expand', agent]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${join(agent, 'agent.yaml')}:5:5 tool 'slow' has 2 problems:`);
    expect(result.stderr).toContain(
      `tools[0].timeout_ms: 'timeout_ms' has the wrong type. Expected a whole number of milliseconds from 1 to 2147483647`,
    );
    expect(result.stderr).toContain(
      `tools[0].pass_model_credentials: 'pass_model_credentials' has the wrong type. Expected true or false, found "yes please".`,
    );
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('shows typed parameters with their type, enum and default, and leaves ask_human out when the agent turns it off', async () => {
    const agent = await createTempAgent({
      agentYaml:
        'name: typed\nllm: {model: m}\nask_human: false\ntools:\n  - name: fetch\n    exec: "curl -X ${method} --max-time ${seconds} -- ${url}"\n' +
        '    parameters:\n      - name: method\n        enum: [GET, POST]\n      - name: seconds\n        type: integer\n        default: 30\n',
    });
    const schema = await runDelta(['tool', 'expand', agent, '--schema', '--json']);
    expect(schema.exitCode).toBe(0);
    expect(JSON.parse(schema.stdout)).toEqual({
      tools: [
        {
          type: 'function',
          function: {
            name: 'fetch',
            description: 'Runs: curl -X ${method} --max-time ${seconds} -- ${url}',
            parameters: {
              type: 'object',
              properties: { method: { type: 'string', enum: ['GET', 'POST'] }, seconds: { type: 'integer' }, url: { type: 'string' } },
              required: ['method', 'url'],
              additionalProperties: false,
            },
          },
        },
      ],
    });
    const expanded = await runDelta(['tool', 'expand', agent]);
    expect(expanded.stdout).toContain('      - name: method\n        type: string\n        enum:\n          - GET\n          - POST\n');
    expect(expanded.stdout).toContain('      - name: seconds\n        type: integer\n        default: 30\n');
  });
  it('shows the argument-injection warning for a placeholder with no -- before it, and --strict refuses it', async () => {
    const agent = await createTempAgent({
      agentYaml: 'name: finder\nllm: {model: m}\ntools:\n  - name: find_files\n    exec: "find ${directory} -name ${pattern}"\n',
    });
    const shown = await runDelta(['tool', 'expand', agent]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stderr).toContain(
      "tools[0].exec: ${directory}, ${pattern} are whole arguments of find with no -- before them: a value starting with '-' would be read as an option",
    );
    const strict = await runDelta(['tool', 'expand', agent, '--strict']);
    expect(strict.exitCode).toBe(2);
    expect(strict.stderr).toContain('${directory}, ${pattern} are whole arguments of find with no -- before them');
    expect(strict.stderr).not.toMatch(STACK_FRAME);
  });
});

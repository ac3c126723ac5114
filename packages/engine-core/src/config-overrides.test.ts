import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { loadAgent } from './load-agent.js';

afterEach(cleanupTempDirs);

const agentYaml = {
  name: 'base',
  llm: { model: 'file-model', temperature: 0.7 },
  tools: [{ name: 'greet', description: 'Greet', exec: 'echo -- ${name}' }],
};

describe('loadAgent with overrides', () => {
  it('applies --model and --set (YAML values, dotted paths, list indexes, a later one winning) before validation', async () => {
    const agent = loadAgent(await createTempAgent({ agentYaml }), {
      overrides: {
        model: '1.5',
        set: [
          'llm.temperature=0',
          'llm.extra_body.top_k=40',
          'max_iterations=3',
          'max_iterations=5',
          'tools.0.description=Say hello',
          'ask_human=false',
        ],
      },
    });
    expect(agent.config.llm).toMatchObject({ model: '1.5', temperature: 0, extra_body: { top_k: 40 } });
    expect(agent.config.max_iterations).toBe(5);
    expect(agent.config.ask_human).toBe(false);
    expect(agent.tools[0]!.description).toBe('Say hello');
    expect(agent.overrides.map((override) => override.source)).toEqual([
      '--model 1.5',
      '--set llm.temperature=0',
      '--set llm.extra_body.top_k=40',
      '--set max_iterations=3',
      '--set max_iterations=5',
      '--set tools.0.description=Say hello',
      '--set ask_human=false',
    ]);
  });

  it('refuses a path through a single value, and an empty key', async () => {
    const home = await createTempAgent({ agentYaml });
    expect(() => loadAgent(home, { overrides: { set: ['name.first=x'] } })).toThrow(
      /--set name.first=x: name is a single value in agent.yaml, so it has no first/,
    );
    expect(() => loadAgent(home, { overrides: { set: ['=3'] } })).toThrow(/--set =3: there is no KEY= before the value/);
    expect(() => loadAgent(home, { overrides: { set: ['llm..model=x'] } })).toThrow(/is not a key of agent.yaml/);
  });

  it('refuses an index past the end of a list without allocating it, and prototype keys', async () => {
    const home = await createTempAgent({ agentYaml });
    const before = process.memoryUsage().heapUsed;
    expect(() => loadAgent(home, { overrides: { set: ['tools.999999999.name=x'] } })).toThrow(
      /--set tools\.999999999\.name=x: tools has 1 item, so there is no item 999999999 to set/,
    );
    // A list of a billion holes would have been hundreds of MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
    expect(() => loadAgent(home, { overrides: { set: ['llm.extra_body.3=x'] } })).toThrow(
      /llm\.extra_body is not a list in agent\.yaml, so it has no item 3/,
    );
    for (const key of ['__proto__.x', 'llm.constructor.y', 'tools.0.prototype']) {
      expect(() => loadAgent(home, { overrides: { set: [`${key}=1`] } })).toThrow(/is not a key of agent\.yaml, and never set/);
    }
    // The index just past the end appends, as the hint says.
    const agent = loadAgent(home, {
      overrides: { set: ['tools.1={name: wave, description: Wave, exec: "echo -- ${name}"}'] },
    });
    expect(agent.tools.map((tool) => tool.name)).toEqual(['greet', 'wave']);
  });

  it('leaves a problem of the file itself as the file says it', async () => {
    const home = await createTempAgent({ agentYaml: { ...agentYaml, max_iterations: 0 } });
    let message = '';
    try {
      loadAgent(home, { overrides: { set: ['llm.temperature=0'] } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/agent\.yaml:\d+:\d+ max_iterations: /);
    expect(message).not.toContain('from --set');
  });
});

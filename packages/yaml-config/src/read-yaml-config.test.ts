import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigFileError, parseYamlConfig } from './index.js';

const Schema = z.strictObject({
  name: z.string(),
  llm: z.looseObject({ model: z.string(), temperature: z.number().optional() }),
  tools: z.array(z.strictObject({ name: z.string(), exec: z.string().optional() })).default([]),
});

describe('parseYamlConfig', () => {
  it('returns typed data and warns about unknown keys by name, with their line', () => {
    const text = 'name: a\nllm:\n  model: m\n  top_p: 0.5\ntools:\n  - name: t\n    program: ls\nextra: 1\n';
    const { data, warnings } = parseYamlConfig(text, 'agent.yaml', Schema);
    expect(data).toEqual({ name: 'a', llm: { model: 'm', top_p: 0.5 }, tools: [{ name: 't' }] });
    expect(warnings.map((warning) => [warning.field, warning.line, warning.column])).toEqual([
      ['tools[0].program', 7, 5],
      ['extra', 8, 1],
    ]);
    expect(warnings[0]?.message).toBe('unknown key "program" is ignored (check its spelling and indentation)');
  });

  it('reports every problem with line, column, field, expected and found', () => {
    const text = 'name: 3\nllm:\n  model: m\n  temperature: hot\n';
    try {
      parseYamlConfig(text, '/a/agent.yaml', Schema, {
        hintFor: (field) => (field === 'llm.temperature' ? 'use a number from 0 to 2' : undefined),
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigFileError);
      const message = (error as ConfigFileError).message;
      expect(message).toContain('/a/agent.yaml:1:7 name: expected string, received number; found number 3');
      expect(message).toContain('/a/agent.yaml:4:16 llm.temperature: expected number, received string; found the string "hot"');
      expect((error as ConfigFileError).hint).toBe('use a number from 0 to 2');
      expect((error as ConfigFileError).code).toBe('CONFIG_INVALID');
    }
  });

  it('names a missing required field at its parent', () => {
    expect(() => parseYamlConfig('name: a\n', 'agent.yaml', Schema)).toThrow(
      /agent\.yaml:1:1 llm: is required but missing \(expected object\)/,
    );
  });

  it('reports YAML syntax errors with their line', () => {
    expect(() => parseYamlConfig('name: a\nllm: [\n', 'agent.yaml', Schema)).toThrow(/agent\.yaml:\d+:\d+ \(yaml syntax\)/);
    expect(() => parseYamlConfig('name: a\nname: b\n', 'agent.yaml', Schema)).toThrow(/unique/i);
  });

  it('refuses a key close to a known one, naming it with the suggestion, together with the other problems', () => {
    const text = 'name: a\nllm:\n  model: m\ntools:\n  - name: t\n    exce: ls\n  - name: 5\nextra: 1\n';
    try {
      parseYamlConfig(text, '/a/agent.yaml', Schema, { hintFor: () => 'a tool is {name, exec}' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigFileError);
      expect((error as ConfigFileError).problems.map((problem) => [problem.field, problem.line, problem.column, problem.message])).toEqual([
        ['tools[0].exce', 6, 5, 'unknown key "exce": did you mean "exec"?'],
        ['tools[1].name', 7, 11, 'expected string, received number; found number 5'],
      ]);
      expect((error as ConfigFileError).hint).toBe('Rename tools[0].exce to tools[0].exec.\na tool is {name, exec}');
    }
  });

  it('refuses a near miss even when everything else is valid', () => {
    expect(() => parseYamlConfig('name: a\nllm:\n  model: m\nnmae: b\n', 'agent.yaml', Schema)).toThrow(
      /agent\.yaml:4:1 nmae: unknown key "nmae": did you mean "name"\?/,
    );
  });

  it('lets the caller decide about an unknown key', () => {
    const text = 'name: a\nllm:\n  model: m\nextra: 1\ntoolz: []\n';
    const seen: unknown[] = [];
    const { warnings } = parseYamlConfig(text, 'agent.yaml', Schema, {
      describeUnknownKey: (key) => {
        seen.push([key.field, key.suggestion, key.known]);
        return key.key === 'toolz' ? { error: false, message: 'toolz is fine here' } : undefined;
      },
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'unknown key "extra" is ignored (check its spelling and indentation)',
      'toolz is fine here',
    ]);
    expect(seen).toEqual([
      ['extra', undefined, ['name', 'llm', 'tools']],
      ['toolz', 'tools', ['name', 'llm', 'tools']],
    ]);
  });
});

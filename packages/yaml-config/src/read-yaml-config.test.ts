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
    const text = 'name: a\nllm:\n  model: m\n  top_p: 0.5\ntools:\n  - name: t\n    exce: ls\nextra: 1\n';
    const { data, warnings } = parseYamlConfig(text, 'agent.yaml', Schema);
    expect(data).toEqual({ name: 'a', llm: { model: 'm', top_p: 0.5 }, tools: [{ name: 't' }] });
    expect(warnings.map((warning) => [warning.field, warning.line, warning.column])).toEqual([
      ['tools[0].exce', 7, 5],
      ['extra', 8, 1],
    ]);
    expect(warnings[0]?.message).toBe('unknown key "exce" is ignored (check its spelling and indentation)');
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
});

import { describe, expect, it } from 'vitest';
import { suggestName } from './index.js';

const LLM = ['model', 'temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'seed', 'n', 'stop'];
const TOOL = ['name', 'description', 'exec', 'shell', 'command', 'parameters', 'stdin', 'timeout_ms', 'pass_model_credentials'];
const HOOKS = ['pre_llm_request', 'post_llm_response', 'pre_tool_execution', 'post_tool_execution', 'on_error', 'on_run_end'];

describe('suggestName', () => {
  it('finds the key a typo was meant to be', () => {
    expect(suggestName('temprature', LLM)).toBe('temperature');
    expect(suggestName('modle', LLM)).toBe('model');
    expect(suggestName('top_k', LLM)).toBe('top_p');
    expect(suggestName('max_token', LLM)).toBe('max_tokens');
    expect(suggestName('timout_ms', TOOL)).toBe('timeout_ms');
    expect(suggestName('paramters', TOOL)).toBe('parameters');
    expect(suggestName('pre_tool_exection', HOOKS)).toBe('pre_tool_execution');
    expect(suggestName('on_run_ned', HOOKS)).toBe('on_run_end');
  });

  it('matches names that differ only in case or separators, whatever their length', () => {
    expect(suggestName('timeoutMs', TOOL)).toBe('timeout_ms');
    expect(suggestName('timeout-ms', TOOL)).toBe('timeout_ms');
    expect(suggestName('N', LLM)).toBe('n');
    expect(suggestName('Top_P', LLM)).toBe('top_p');
  });

  it('suggests nothing for names that are not close', () => {
    expect(suggestName('min_p', LLM)).toBeUndefined();
    expect(suggestName('repetition_penalty', LLM)).toBeUndefined();
    expect(suggestName('m', LLM)).toBeUndefined();
    expect(suggestName('xy', ['xz'])).toBeUndefined();
    expect(suggestName('author', TOOL)).toBeUndefined();
    expect(suggestName('before_tool', HOOKS)).toBeUndefined();
    expect(suggestName('anything', [])).toBeUndefined();
  });

  it('takes the closest name, and the first one on a tie', () => {
    expect(suggestName('stopp', ['stop', 'stops'])).toBe('stop');
    expect(suggestName('abcx', ['abcd', 'abce'])).toBe('abcd');
    expect(suggestName('max_tokenz', LLM)).toBe('max_tokens');
  });

  it('suggests nothing for a known name', () => {
    expect(suggestName('model', LLM)).toBeUndefined();
  });
});

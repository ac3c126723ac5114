import { describe, expect, it } from 'vitest';
import { parseDotenv } from './dotenv.js';

describe('parseDotenv', () => {
  it('reads KEY=value lines with export, comments, quotes and escapes', () => {
    const text = [
      '# comment',
      '',
      'PLAIN=value # trailing comment',
      'export EXPORTED=yes',
      "SINGLE='a # not a comment'",
      'DOUBLE="line\\nbreak \\"quoted\\""',
      '  SPACED = spaced  ',
      'not a line',
      'EMPTY=',
    ].join('\r\n');
    expect(parseDotenv(text)).toEqual({
      PLAIN: 'value',
      EXPORTED: 'yes',
      SINGLE: 'a # not a comment',
      DOUBLE: 'line\nbreak "quoted"',
      SPACED: 'spaced',
      EMPTY: '',
    });
  });
});

// The two cases util.parseEnv reads differently, which is why parseDotenv is ours (see dotenv.ts).
describe('parseDotenv where util.parseEnv differs', () => {
  it('keeps \\" inside a double-quoted value', () => {
    expect(parseDotenv('GREETING="say \\"hi\\" now"\n')).toEqual({ GREETING: 'say "hi" now' });
  });

  it('skips a line without = and still reads the next one', () => {
    expect(parseDotenv('not a line\nDELTA_BASE_URL=http://localhost:11434/v1\n')).toEqual({
      DELTA_BASE_URL: 'http://localhost:11434/v1',
    });
  });
});

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

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError, DeltaError, parseJson, safeParseJson, type SafeParseSchema } from './index.js';

const Record = z.object({ pid: z.number().int(), tags: z.array(z.string()), nested: z.object({ at: z.string() }).optional() });

describe('parseJson', () => {
  it('returns the value; with a zod schema, the typed data', () => {
    expect(parseJson('{"a":[1,2]}', '/run/x.json')).toEqual({ a: [1, 2] });
    const record = parseJson('{"pid":7,"tags":["a"]}', '/run/p.json', { schema: Record });
    expect(record.pid).toBe(7);
  });

  it('names the source and the parser reason for text that is not JSON, with JSON_INVALID by default', () => {
    const thrown = catchError(() => parseJson('{"pid": 7,', '/run/p.json'));
    expect(thrown).toMatchObject({ name: 'SystemError', kind: 'system', code: 'JSON_INVALID', file: '/run/p.json' });
    expect(thrown.message).toMatch(/^\/run\/p\.json is not valid JSON: /);
    expect(catchError(() => parseJson('  \n', '/run/empty.json')).message).toBe('/run/empty.json is not valid JSON: it is empty');
  });

  it('names the field of a value of the wrong shape; several problems are listed', () => {
    const one = catchError(() => parseJson('{"pid":"7","tags":[]}', '/run/p.json', { schema: Record }));
    expect(one).toMatchObject({ code: 'JSON_INVALID', field: 'pid', file: '/run/p.json' });
    expect(one.message).toMatch(/^\/run\/p\.json: field pid: .*expected number/);
    const many = catchError(() => parseJson('{"tags":["a",3],"nested":{}}', '/run/p.json', { schema: Record }));
    expect(many.field).toBe('pid');
    expect(many.message.split('\n')).toEqual([
      '/run/p.json does not have the expected shape:',
      expect.stringMatching(/^ {2}- field pid: /),
      expect.stringMatching(/^ {2}- field tags\[1\]: /),
      expect.stringMatching(/^ {2}- field nested\.at: /),
    ]);
    const top = catchError(() => parseJson('[1]', 'the supervisor reply', { schema: Record }));
    expect(top.message).toMatch(/^the supervisor reply: field \(top level\): /);
  });

  it('raises the error of the kind its code says, with the hint', () => {
    const thrown = catchError(() => parseJson('nope', '/a/script.json', { code: 'CONFIG_INVALID', hint: 'Fix the script.' }));
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect(thrown).toMatchObject({ code: 'CONFIG_INVALID', hint: 'Fix the script.' });
  });

  it('takes a hand-written schema as well as a zod one', () => {
    const positive: SafeParseSchema<number> = {
      safeParse: (value) =>
        typeof value === 'number' && value > 0
          ? { success: true, data: value }
          : { success: false, error: { issues: [{ path: [], message: 'expected a positive number' }] } },
    };
    expect(parseJson('3', 'x', { schema: positive })).toBe(3);
    expect(safeParseJson('-3', 'the count', { schema: positive })).toMatchObject({
      success: false,
      error: { message: 'the count: field (top level): expected a positive number' },
    });
  });
});

describe('safeParseJson', () => {
  it('never throws: it returns the data or the error parseJson would throw', () => {
    expect(safeParseJson('{"x":1}', 'f')).toEqual({ success: true, data: { x: 1 } });
    const failed = safeParseJson('{x', 'f');
    expect(failed.success).toBe(false);
    expect(!failed.success && DeltaError.isInstance(failed.error) && failed.error.code).toBe('JSON_INVALID');
  });
});

function catchError(run: () => unknown): DeltaError {
  try {
    run();
  } catch (error) {
    if (DeltaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

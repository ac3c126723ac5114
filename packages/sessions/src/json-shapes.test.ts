import { describe, expect, it } from 'vitest';
import { failure } from '../test/session-failure.js';
import { parseSessionJson, SupervisorReportShape, SupervisorResponseShape } from './json-shapes.js';

const parse = (text: string, shape: Parameters<typeof parseSessionJson>[2]) =>
  failure(Promise.resolve().then(() => parseSessionJson(text, 'the answer', shape)));

describe("a session process's answers", () => {
  it('are taken when they have the agreed shape', () => {
    const answer = { ok: true, result: { stdout: 'x\n', stderr: '', exit_code: 0, execution_time_ms: 3 } };
    expect(parseSessionJson(JSON.stringify(answer), 'the answer', SupervisorResponseShape)).toEqual(answer);
    const failed = { ok: false, error: { code: 'EXEC_TIMEOUT', message: 'too long', stdout: 'so far' } };
    expect(parseSessionJson(JSON.stringify(failed), 'the answer', SupervisorResponseShape)).toEqual(failed);
    expect(parseSessionJson('{"ready":true,"pid":5,"interpreter_pid":6}', 'the report', SupervisorReportShape)).toEqual({
      ready: true,
      pid: 5,
      interpreter_pid: 6,
    });
  });

  it('are refused with the field named when they do not, never passed on as a code nobody knows', async () => {
    const unknownCode = await parse('{"ok":false,"error":{"code":"OOPS","message":"m"}}', SupervisorResponseShape);
    expect(unknownCode).toMatchObject({ code: 'JSON_INVALID', message: 'the answer: field error.code: expected a session error code' });
    const noResult = await parse('{"ok":true}', SupervisorResponseShape);
    expect(noResult.message).toBe('the answer: field result: expected an object');
    const notReady = await parse('{"ready":false}', SupervisorReportShape);
    expect(notReady.message).toMatch(/^the answer does not have the expected shape:\n {2}- field ready: expected one of true\n/);
    expect((await parse('ready', SupervisorReportShape)).message).toMatch(/^the answer is not valid JSON: /);
  });
});

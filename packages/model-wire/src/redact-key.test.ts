import { DeltaError } from '@delta/errors';
import { cleanupTestResources, type ScriptStepInput, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelWire, type RetryNotice } from './model-wire.js';

const KEY = 'sk-test-echoed-0123456789abcdef';
afterEach(cleanupTestResources);

async function failureOf(script: ScriptStepInput[], retries: RetryNotice[] = []): Promise<DeltaError> {
  const server = await startFakeLlm({ script });
  const wire = createModelWire({ baseUrl: server.baseUrl, apiKey: KEY, maxRetries: script.length - 1 });
  try {
    await wire.send({
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      onRetry: (notice) => retries.push(notice),
    });
  } catch (error) {
    if (DeltaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('a key the server quotes back', () => {
  it('is taken out of the error of a 401, of a retried 5xx (its notice too), and of a non-JSON body cut to a preview', async () => {
    const unauthorized = await failureOf([{ error: { status: 401, message: `Incorrect API key provided: ${KEY}.` } }]);
    expect(unauthorized.code).toBe('MODEL_UNAUTHORIZED');
    expect(unauthorized.message).toContain('Incorrect API key provided: [REDACTED].');

    const retries: RetryNotice[] = [];
    // The key straddles the 200 bytes a preview keeps: no half of it may stay either.
    const body = `${'x'.repeat(190)} ${KEY} and more`;
    const failed = await failureOf(
      [
        { raw: { status: 500, content_type: 'application/json', body: JSON.stringify({ error: { message: `upstream refused ${KEY}` } }) } },
        { raw: { status: 502, content_type: 'text/html', body } },
      ],
      retries,
    );
    expect(retries[0]!.reason).toContain('upstream refused [REDACTED]');
    expect(failed.message).toMatch(/text\/html body "x{190} \[REDACTED/);
    for (const text of [failed.message, retries[0]!.reason, unauthorized.message]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(0, 9));
    }
  });

  it('is taken out of what a successful answer that is no chat completion quotes', async () => {
    const error = await failureOf([{ raw: { status: 200, content_type: 'application/json', json: { oops: `the key ${KEY}` } } }]);
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).not.toContain(KEY);
  });

  it('is taken out of the body an error keeps for response.raw', async () => {
    const error = await failureOf([{ raw: { status: 200, content_type: 'text/html', body: `<p>bad gateway for ${KEY}</p>` } }]);
    expect(error.code).toBe('MODEL_BAD_RESPONSE');
    expect((error as DeltaError & { rawBody?: string }).rawBody).toBe('<p>bad gateway for [REDACTED]</p>');
  });
});

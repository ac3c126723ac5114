import { cleanupTestResources, startFakeLlm } from '@delta/testkit';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatCompletion } from './chat-completion.js';
import { createModelClient } from './model-client.js';
import type { RetryNotice } from './model-wire.js';
import { modelClientFromOpenAI, type OpenAIClient } from './openai-client.js';

afterEach(cleanupTestResources);

const payload = {
  model: 'gpt-test',
  temperature: 0.2,
  messages: [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: 'Read notes.txt — «quoted»' },
  ],
  tools: [
    {
      type: 'function' as const,
      function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    },
  ],
};

describe('our types against the openai SDK', () => {
  it('take an OpenAI client as an OpenAIClient and its ChatCompletion as ours (checked by tsc)', async () => {
    const server = await startFakeLlm({ script: [{ content: 'typed' }], apiKey: 'k' });
    const sdk = new OpenAI({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
    const client: OpenAIClient = sdk;
    const answer: OpenAI.ChatCompletion = await sdk.chat.completions.create(payload);
    const ours: ChatCompletion = answer;
    expect(client.baseURL).toBe(server.baseUrl);
    expect(ours.choices[0]?.message.content).toBe('typed');
  });
});

describe('createModelClient', () => {
  it('sends the bytes and headers the official client sends for the same payload', async () => {
    const server = await startFakeLlm({ script: [{ content: 'one' }, { content: 'two' }], apiKey: 'sk-same' });
    const sdk = new OpenAI({ apiKey: 'sk-same', baseURL: server.baseUrl, maxRetries: 0 });
    await sdk.chat.completions.create(payload);
    const ours = await createModelClient({ apiKey: 'sk-same', baseUrl: server.baseUrl, maxRetries: 0 });
    const answer = await ours.complete(payload, {});
    expect(answer.choices[0]?.message.content).toBe('two');
    const [official, wire] = server.requests;
    expect(wire!.rawBody).toBe(official!.rawBody);
    expect(wire!.path).toBe(official!.path);
    for (const header of ['authorization', 'content-type']) expect(wire!.headers[header]).toBe(official!.headers[header]);
  });

  it('tells each retry with one notice: the reason in full and in a few words', async () => {
    const server = await startFakeLlm({ script: [{ error: { status: 503, message: 'overloaded' } }, { content: 'ok' }] });
    const client = await createModelClient({ apiKey: 'k', baseUrl: server.baseUrl, maxRetries: 1 });
    const notices: RetryNotice[] = [];
    await client.complete(payload, { onRetry: (notice) => notices.push(notice) });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ attempt: 1, attempts: 2, status: 503, summary: 'HTTP 503' });
    expect(notices[0]!.reason).toMatch(/answered HTTP 503: overloaded/);
  });
});

describe('modelClientFromOpenAI', () => {
  it('sends through the caller’s client, records the exact bytes sent, and leaves that client as it was', async () => {
    const server = await startFakeLlm({ script: [{ content: 'through the SDK' }], apiKey: 'sk-own' });
    const sdk = new OpenAI({ apiKey: 'sk-own', baseURL: server.baseUrl, maxRetries: 0, defaultHeaders: { 'x-caller': 'test' } });
    const recorded: string[] = [];
    const client = modelClientFromOpenAI(sdk);
    const answer = await client.complete(payload, {
      onRequestBody: (body) => recorded.push(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')),
    });
    expect(answer.choices[0]?.message.content).toBe('through the SDK');
    expect(client.baseUrl).toBe(server.baseUrl);
    expect(server.requests[0]!.headers['x-caller']).toBe('test');
    expect(recorded).toEqual([server.requests[0]!.rawBody]);
    expect(JSON.parse(server.requests[0]!.rawBody)).toEqual(payload);
  });

  it('fails the call with the record’s own error when the record cannot be written, not as a connection error', async () => {
    const server = await startFakeLlm({ script: [{ content: 'never read' }] });
    const client = modelClientFromOpenAI(new OpenAI({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 2 }));
    const full = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const call = client.complete(payload, {
      onRequestBody: () => {
        throw full;
      },
    });
    await expect(call).rejects.toBe(full);
    expect(server.requests).toHaveLength(0);
  });
});

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptStep } from '@delta/testkit';
import { readInvocationRequest } from '@delta/journal';
import { cleanupTestResources } from '@delta/testkit';
import { agentWith, run } from './hooks.test-support.js';

afterEach(cleanupTestResources);

describe('lifecycle hooks in a run', () => {
  it('sends the payload a pre_llm_request hook writes, and records it as sent', async () => {
    const rewrite = `#!/bin/sh
python3 - <<'PY'
import json, os
io = os.environ['DELTA_HOOK_IO_PATH']
payload = json.load(open(io + 'input/proposed_payload.json'))
payload['messages'].insert(0, {'role': 'system', 'content': 'INJECTED BY HOOK'})
payload['temperature'] = 0
json.dump(payload, open(io + 'output/final_payload.json', 'w'))
PY
`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const { result, server } = await run(agent, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    const sent = server.requests[0]!.body as { messages: Array<{ content: string }>; temperature: number };
    expect(sent.messages[0]!.content).toBe('INJECTED BY HOOK');
    expect(sent.temperature).toBe(0);
    const [invocation] = readdirSync(result.paths.invocationsDir);
    expect(readInvocationRequest(result.paths, invocation!)).toBe(server.requests[0]!.rawBody);
  });

  it('records every request exactly when a pre_llm_request hook rewrites earlier messages in one iteration', async () => {
    const rewrite = `#!/bin/sh
python3 - <<'PY'
import json, os
io = os.environ['DELTA_HOOK_IO_PATH']
payload = json.load(open(io + 'input/proposed_payload.json'))
if os.environ['ITERATION_COUNT'] == '2':
    payload['messages'][0]['content'] = 'REWRITTEN BY HOOK ' * 50
json.dump(payload, open(io + 'output/final_payload.json', 'w'))
PY
`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const say = (text: string): ScriptStep => ({ tool_calls: [{ name: 'say', arguments: { text } }] });
    const { result, server } = await run(agent, [say('one'), say('two'), say('three'), { content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    const invocations = readdirSync(result.paths.invocationsDir).sort();
    expect(invocations).toHaveLength(4);
    for (const [index, id] of invocations.entries()) expect(readInvocationRequest(result.paths, id)).toBe(server.requests[index]!.rawBody);
    expect(server.requests[1]!.rawBody).toContain('REWRITTEN BY HOOK');
    expect(server.requests[2]!.rawBody).not.toContain('REWRITTEN BY HOOK');
    // The rewritten request shares less than half with the one before, so it is copied whole; later ones are deltas again.
    const kinds = invocations.map((id) => readdirSync(join(result.paths.invocationsDir, id)).find((name) => name.startsWith('request')));
    expect(kinds).toEqual(['request.json', 'request.json', 'request.delta.json', 'request.delta.json']);
  });

  it('falls back to the proposed payload with a SYSTEM_MESSAGE when the hook fails or writes junk', async () => {
    const junk = `#!/bin/sh\necho '{not json' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"\n`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/junk.sh']\n`, { 'junk.sh': junk });
    const { result, journal, server } = await run(agent, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect((server.requests[0]!.body as { messages: Array<{ role: string }> }).messages[1]).toMatchObject({ role: 'user' });
    const warning = journal.find((event) => event.type === 'SYSTEM_MESSAGE');
    expect(warning).toMatchObject({ level: 'WARN' });
    expect(warning?.type === 'SYSTEM_MESSAGE' && warning.content).toMatch(
      /^pre_llm_request: .*final_payload\.json.*the unmodified payload is sent/,
    );
  });

  it("sends the payload a pre_llm_request hook writes to output/payload_override.dat, the spec's generic name", async () => {
    const rewrite = `#!/bin/sh
python3 - <<'PY'
import json, os
io = os.environ['DELTA_HOOK_IO_PATH']
payload = json.load(open(io + 'input/proposed_payload.json'))
payload['messages'].insert(0, {'role': 'system', 'content': 'FROM PAYLOAD OVERRIDE'})
json.dump(payload, open(io + 'output/payload_override.dat', 'w'))
PY
`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const { result, journal, server } = await run(agent, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect((server.requests[0]!.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe('FROM PAYLOAD OVERRIDE');
    expect(journal.filter((event) => event.type === 'SYSTEM_MESSAGE')).toEqual([]);
  });

  it('sends the proposed payload, saying why, when payload_override.dat is junk; final_payload.json wins over it', async () => {
    const junk = `#!/bin/sh\necho '{not json' > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"\n`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/junk.sh']\n`, { 'junk.sh': junk });
    const { journal, server: first } = await run(agent, [{ content: 'done' }]);
    expect((first.requests[0]!.body as { messages: Array<{ role: string }> }).messages[1]).toMatchObject({ role: 'user' });
    const warning = journal.find((event) => event.type === 'SYSTEM_MESSAGE');
    expect(warning?.type === 'SYSTEM_MESSAGE' && warning.content).toMatch(
      /^pre_llm_request: .*output\/payload_override\.dat.*the unmodified payload is sent/,
    );

    const both = `#!/bin/sh
echo '{"model": "m", "messages": [{"role": "user", "content": "FROM FINAL PAYLOAD"}]}' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"
echo '{"model": "m", "messages": [{"role": "user", "content": "FROM OVERRIDE"}]}' > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"
`;
    await first.close();
    const second = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/both.sh']\n`, { 'both.sh': both });
    const { result, server } = await run(second, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect(server.requests[0]!.rawBody).toContain('FROM FINAL PAYLOAD');
    expect(server.requests[0]!.rawBody).not.toContain('FROM OVERRIDE');
  });
});

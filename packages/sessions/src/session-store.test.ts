import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeltaError } from '@delta/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failure } from '../test/session-failure.js';
import { temporaryWorkspace } from '../test/temp-workspace.js';
import { execInSession, startSession } from './index.js';

let cwd: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ cwd, dispose } = await temporaryWorkspace());
});
afterEach(async () => {
  await dispose();
});

describe("a session's metadata.json, read back", () => {
  async function damaged(edit: (metadata: Record<string, unknown>) => unknown) {
    const { session_id } = await startSession({ cwd });
    const file = join(cwd, '.sessions', session_id, 'metadata.json');
    const edited = edit(JSON.parse(await readFile(file, 'utf8')));
    await writeFile(file, typeof edited === 'string' ? edited : JSON.stringify(edited));
    return { error: await failure(execInSession(session_id, 'echo hi', { cwd })), file };
  }

  it('is named with the field when a field is wrong', async () => {
    const { error, file } = await damaged((metadata) => ({ ...metadata, kind: 'tty', execution_count: 'one' }));
    expect(error.code).toBe('JSON_INVALID');
    expect(error.message).toBe(
      `${file} does not have the expected shape:\n` +
        '  - field kind: expected one of "shell", "interpreter"\n' +
        '  - field execution_count: expected a whole number',
    );
    expect(DeltaError.isInstance(error) && error.kind).toBe('system');
  });

  it('is named when it is not JSON at all', async () => {
    const { error, file } = await damaged(() => '{"schema_version": 1,');
    expect(error.code).toBe('JSON_INVALID');
    expect(error.message).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')} is not valid JSON: `));
  });

  it('from another version is refused as such, before its fields are checked', async () => {
    const { error } = await damaged(() => ({ schema_version: 2, renamed: true }));
    expect(error.code).toBe('UNSUPPORTED_STATE_VERSION');
    expect(error.message).toMatch(/has schema_version 2; this version of @delta\/sessions reads 1\.$/);
  });
});

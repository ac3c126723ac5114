import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTree, temporaryWorkspace } from '../test/temp-workspace.js';
import { looksLikeCredential } from './credentials.js';
import { execInSession, startSession } from './index.js';

let cwd: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ cwd, dispose } = await temporaryWorkspace());
});
afterEach(async () => {
  await dispose();
});

describe('credentials', () => {
  it('recognises credential-looking names', () => {
    for (const name of ['DELTA_API_KEY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'CLIENT_SECRET', 'DB_PASSWORD', 'AWS_SECRET_ACCESS_KEY']) {
      expect(looksLikeCredential(name)).toBe(true);
    }
    expect(looksLikeCredential('PATH')).toBe(false);
  });

  it('no file under .sessions/ ever holds the value of an API key from the environment', async () => {
    const secrets = {
      OPENAI_API_KEY: `sk-test-${randomBytes(12).toString('hex')}`,
      DELTA_API_KEY: `dk-test-${randomBytes(12).toString('hex')}`,
      SERVICE_TOKEN: `tok-${randomBytes(12).toString('hex')}`,
    };
    const env = { ...process.env, ...secrets };
    const bash = await startSession({ cwd, env });
    await execInSession(bash.session_id, 'cd /tmp && export MODE=test', { cwd, env });
    const copied = await execInSession(bash.session_id, 'export COPY="Bearer $OPENAI_API_KEY"; export OPENAI_API_KEY="$OPENAI_API_KEY"', {
      cwd,
      env,
    });
    expect(copied.stderr).toContain('COPY was not saved for the next exec: its value contains the inherited credential OPENAI_API_KEY');
    const inFunction = await execInSession(
      bash.session_id,
      `show() { echo "${secrets.DELTA_API_KEY}"; }; alias key="echo $SERVICE_TOKEN"`,
      { cwd, env },
    );
    expect(inFunction.stderr).toContain('functions and aliases were not saved');
    await execInSession(bash.session_id, 'export MY_OWN_TOKEN=chosen-by-the-session', { cwd, env });
    const after = await execInSession(bash.session_id, 'echo "$MODE $(pwd) ${COPY:-gone} $MY_OWN_TOKEN"', { cwd, env });
    expect(after.stdout).toBe('test /tmp gone chosen-by-the-session\n');

    const python = await startSession({ cwd, env, command: ['python3'] });
    await execInSession(python.session_id, 'import os\nkey = os.environ["OPENAI_API_KEY"]\nprint(len(key))', { cwd, env });

    const files = await readTree(join(cwd, '.sessions'));
    expect(files.map((file) => file.path)).toContain(join(cwd, '.sessions', bash.session_id, 'env.sh'));
    for (const file of files) {
      for (const [name, value] of Object.entries(secrets)) {
        expect(file.content.includes(value), `${file.path} holds ${name}`).toBe(false);
      }
    }
  });
});

import { randomBytes } from 'node:crypto';
import { SessionError } from './session-error.js';

const sessionIdPattern = /^sess_[A-Za-z0-9_-]{1,64}$/;

export function newSessionId(): string {
  return `sess_${randomBytes(6).toString('hex')}`;
}

/** Refuses anything that is not a session id, so an id can never point outside the sessions directory. */
export function checkSessionId(value: string): string {
  if (!sessionIdPattern.test(value)) {
    throw new SessionError(`"${value}" is not a session id; expected something like sess_3f9a1c0b2d4e (see \`delta-sessions list\`).`, {
      code: 'INVALID_SESSION_ID',
    });
  }
  return value;
}

export { startSession } from './start-session.js';
export type { StartSessionOptions } from './start-session.js';
export { execInSession } from './exec-in-session.js';
export type { ExecOptions } from './exec-in-session.js';
export { cleanupSessions } from './cleanup-sessions.js';
export { endSession } from './end-session.js';
export type { EndOptions } from './end-session.js';
export { listSessions } from './list-sessions.js';
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, resolveSessionsDir } from './options.js';
export type { SessionsOptions } from './options.js';
export { SessionError } from './session-error.js';
export type { SessionErrorCode, SessionErrorOptions } from './session-error.js';
export { looksLikeCredential } from './credentials.js';
export type {
  EndResult,
  ExecResult,
  LeftAloneResult,
  SessionKind,
  SessionListEntry,
  SessionMetadata,
  SessionStatus,
  StartResult,
} from './types.js';

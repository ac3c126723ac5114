export { startSession } from './start-session.js';
export type { StartSessionOptions } from './start-session.js';
export { execInSession } from './exec-in-session.js';
export type { ExecOptions } from './exec-in-session.js';
export { cleanupSessions } from './cleanup-sessions.js';
export { endSession } from './end-session.js';
export type { EndOptions } from './end-session.js';
export { listSessions } from './list-sessions.js';
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from './options.js';
export type { SessionsOptions } from './options.js';
export { SessionError } from './session-error.js';
export type { SessionErrorCode } from './session-error.js';
export type {
  EndResult,
  ExecResult,
  LeftAloneResult,
  SessionListEntry,
  SessionStatus,
  StartResult,
} from './types.js';

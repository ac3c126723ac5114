/**
 * `active`: usable. `terminated`: stopped by `end` or `cleanup` (the word `end` answers with, spec 2.3.2).
 * `dead`: an interpreter session whose process is gone.
 */
export type SessionStatus = 'active' | 'terminated' | 'dead';

/** `shell`: bash or sh, state restored from files on every exec. `interpreter`: a long-lived process. */
export type SessionKind = 'shell' | 'interpreter';

/** What `start` answers (spec 2.3.2). */
export interface StartResult {
  session_id: string;
  command: string;
  work_dir: string;
  status: 'active';
}

/** What `exec` answers (spec 2.3.2). Output over the cap is cut, with a note saying how much was dropped. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  execution_time_ms: number;
}

/** What `end` answers (spec 2.3.2). */
export interface EndResult {
  status: 'terminated';
  session_id: string;
}

/** What `cleanup` answers for a session it would not touch: which, and why (nothing was killed or removed). */
export interface LeftAloneResult {
  status: 'left_alone';
  session_id: string;
  reason: string;
}

/** One entry of what `list` answers (spec 2.3.2). */
export interface SessionListEntry {
  session_id: string;
  command: string;
  status: SessionStatus;
  created_at: string;
}

/** metadata.json in a session directory (spec 2.3.3), versioned by `schema_version`. */
export interface SessionMetadata {
  schema_version: 1;
  session_id: string;
  /** The command as one display string, e.g. `python3 -q`. */
  command: string;
  /** The command as argv, as given to `start`. */
  argv: string[];
  kind: SessionKind;
  created_at: string;
  last_executed_at: string | null;
  /** `active` or `terminated`; `dead` is never stored, it is found by looking at the process. */
  status: 'active' | 'terminated';
  /** The directory the session started in. */
  work_dir: string;
  execution_count: number;
  /** Interpreter sessions: the supervisor's pid, which is also its process group id. */
  pid?: number;
  /** Interpreter sessions: the interpreter's own pid. */
  interpreter_pid?: number;
  /**
   * Interpreter sessions: the unix socket the supervisor listens on. Informative only: `exec` and `end`
   * use the path that follows from the session directory, never this one.
   */
  socket_path?: string;
  /** Interpreter sessions: the random marker in the session process's environment (`DELTA_SESSION_MARKER`). */
  marker?: string;
  /** Interpreter sessions: when the supervisor started, in clock ticks since boot (/proc/<pid>/stat). */
  start_ticks?: string;
  /** Interpreter sessions: when the interpreter started, in clock ticks since boot. */
  interpreter_start_ticks?: string;
  terminated_at?: string;
}

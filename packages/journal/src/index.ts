export {
  RunStatus,
  RecordedToolCall,
  RunOrigin,
  WorkspaceManifest,
  AgentFingerprint,
  TokenUsage,
  JournalEvent,
  EngineStartEvent,
  ThoughtEvent,
  ActionRequestEvent,
  ActionResultStatus,
  ActionResultEvent,
  SystemMessageEvent,
} from './events.js';
export type { JournalEventType, JournalEventOf, NewJournalEvent } from './events.js';
export { readJournal } from './read-journal.js';
export type { ReadJournalOptions } from './read-journal.js';
export { JournalReader } from './journal-reader.js';
export { followJournalEvents, followJournalLines } from './follow-journal.js';
export type { FollowOptions } from './follow-journal.js';
export { readRunRecord, SMALL_RECORD_MAX_BYTES } from './read-record.js';
export { JournalWriter } from './journal-writer.js';
export { applyEvent, emptyRunState, foldEvents } from './run-state.js';
export { addTokenUsage } from './token-usage.js';
export type { RunState, PendingCall } from './run-state.js';
export { conversationOf } from './conversation.js';
export type { Conversation } from './conversation.js';
export { MISSING_RESULT } from './conversation-fold.js';
export type { ChatToolCall, ConversationFold, ConversationMessage, ConversationTurn } from './conversation-fold.js';
export { MetadataFile } from './metadata-file.js';
export type { TornTailRepair } from './journal-writer.js';
export {
  CONTROL_PLANE_VERSION,
  RunMetadata,
  ModelEndpoint,
  EstimatedCost,
  readMetadata,
  writeMetadata,
  updateMetadata,
} from './metadata.js';
export { createRunId, isRunId, runIdProblem } from './run-id.js';
export {
  controlDirectory,
  runPaths,
  createRunDirectories,
  readLatestRunId,
  findRunPaths,
  writeLatestRunId,
  listRunIds,
  workspacesDirectory,
  listWorkspaces,
  createNextWorkspace,
  createOriginWorkspace,
  listOriginWorkspaces,
  originDirectory,
  runKind,
  readLastUsedWorkspace,
  writeLastUsedWorkspace,
  recordOtherWorkspace,
  readOtherWorkspaces,
} from './layout.js';
export type { RunKind, RunPaths } from './layout.js';
export { describeIoMigration, migrateLegacyIo } from './legacy-io.js';
export type { IoMigration } from './legacy-io.js';
export { describeLegacyRunMigration, migrateLegacyRun } from './legacy-layout.js';
export type { LegacyRunMigration } from './legacy-layout.js';
export { acquireRunLock } from './run-lock.js';
export type { RunLock, RunLockOptions } from './run-lock.js';
export { holderIsAlive, RunLockHolder, safeParseRunLockHolder } from './run-lock-holder.js';
export {
  createToolExecutionRecord,
  finishToolExecutionRecord,
  unfinishedToolExecutions,
  createInvocationId,
  invocationDirectory,
  RESPONSE_STREAM_FILE,
  writeInvocationResult,
} from './io-records.js';
export type { ToolExecutionRecord, InvocationMetadata } from './io-records.js';
export {
  InvocationRequestRecorder,
  readInvocationRequest,
  readInvocationRequestBytes,
  REQUEST_FILE,
  REQUEST_DELTA_FILE,
} from './invocation-request.js';
export { RequestDelta } from './invocation-request.js';
// The one JSON-parse helper lives in @delta/errors; re-exported for the packages that already import it from here.
export { parseJson } from '@delta/errors';

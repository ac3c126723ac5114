export {
  FileSource,
  ComputedFileSource,
  JournalSource,
  ContextSource,
  ContextManifest,
  DEFAULT_CONTEXT_YAML,
  loadContextManifest,
  substituteEngineVariables,
} from './manifest.js';
export type { LoadedContextManifest } from './manifest.js';
export { journalToMessages, MISSING_RESULT } from './journal-messages.js';
export type { JournalMessagesOptions } from './journal-messages.js';
export { buildContextMessages } from './build-context.js';
export type { BuildContextOptions } from './build-context.js';
export type { ChatMessage, ChatToolCall } from './messages.js';

export { loadContextManifest } from './manifest.js';
export type { LoadedContextManifest } from './manifest.js';
export { buildContext, buildContextMessages } from './build-context.js';
export type { BuildContextOptions } from './build-context.js';
export { estimateTokens } from './token-count.js';
export type { CountTokens } from './token-count.js';
export type { ChatMessage, ChatToolCall, ContextMessages } from './messages.js';

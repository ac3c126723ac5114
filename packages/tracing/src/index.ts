export { RunSpanBuilder, runSpans } from './run-spans.js';
export type { SpanAttributes, SpanOptions, SpanRecord } from './run-spans.js';
export { OtlpSender, tracesUrl } from './otlp-sender.js';
export type { OtlpTarget } from './otlp-sender.js';
export { exportRun, spansOfRun } from './export-run.js';
export type { RecordedRunFiles } from './export-run.js';
export { createLiveExport } from './live-export.js';
export type { LiveExport } from './live-export.js';
export { ERROR_TYPE, GEN_AI, GEN_AI_OPERATION } from './gen-ai-attributes.js';

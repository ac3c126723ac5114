export type { OtlpTarget } from './otlp-sender.js';
export { exportRun, spansOfRun } from './export-run.js';
export type { RecordedRunFiles } from './export-run.js';
export { createLiveExport } from './live-export.js';
export type { LiveExport } from './live-export.js';
export { liveExportFromEnvironment } from './environment-export.js';
export type { EnvironmentExport } from './environment-export.js';

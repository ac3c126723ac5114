export { readProcessStat, processStartTicks, hasProcFileSystem } from './process-stat.js';
export type { ProcessStat } from './process-stat.js';
export { isProcessAlive, isProcessGroupAlive } from './process-liveness.js';
export { ProcessFile, readProcessFile } from './process-file.js';
export { processIdentity, writeProcessFile } from './write-process-file.js';

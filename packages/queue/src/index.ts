export { parseRedisAddress, withoutPassword } from './redis-address.js';
export type { RedisAddress } from './redis-address.js';
export { connectRedis } from './redis-connection.js';
export { enqueueBatch } from './enqueue-batch.js';
export type { EnqueueOptions, EnqueueResult } from './enqueue-batch.js';
export { runWorker } from './run-worker.js';
export type { RunWorkerOptions } from './run-worker.js';
export { waitForBatch } from './wait-for-batch.js';
export type { FailedRunJob, QueueProgress, WaitForBatchOptions } from './wait-for-batch.js';

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findRunPaths, readLatestRunId, readMetadata, type RunMetadata } from '@delta/journal';

/** The workspace's latest run, which `delta run` resumes instead of starting a new one. */
export interface ResumableRun {
  runId: string;
  metadata: RunMetadata;
  /** A run paused on a question whose answer waits in its interaction/response.txt: the run takes that answer, not the message. */
  answerFromFile: boolean;
}

const RESUMABLE = new Set(['INTERRUPTED', 'WAITING_FOR_INPUT', 'RUNNING']);

/** Smart resume (spec 2.6.1): the workspace's latest run when it is interrupted, paused or crashed (still RUNNING), else undefined. */
export function resumableRun(workDir: string): ResumableRun | undefined {
  const runId = readLatestRunId(workDir);
  if (runId === undefined || !existsSync(findRunPaths(workDir, runId).metadata)) return undefined;
  const paths = findRunPaths(workDir, runId);
  const metadata = readMetadata(paths.metadata);
  if (!RESUMABLE.has(metadata.status)) return undefined;
  const answerFromFile = metadata.status === 'WAITING_FOR_INPUT' && existsSync(join(paths.interactionDir, 'response.txt'));
  return { runId, metadata, answerFromFile };
}

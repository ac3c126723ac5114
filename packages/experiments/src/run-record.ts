import { existsSync } from 'node:fs';
import {
  foldEvents,
  readJournal,
  readLatestRunId,
  readMetadata,
  runPaths,
  type JournalEvent,
  type RunMetadata,
  type RunPaths,
  type RunStatus,
} from '@delta/journal';

/** A batch run's directory as found on disk: which run it holds and how that run stands by its journal. */
export type RunOnDisk =
  | { kind: 'none' }
  /** The run's id was claimed (LATEST, its directory) but it was stopped before metadata.json existed. */
  | { kind: 'unstarted'; runId: string; paths: RunPaths }
  | {
      kind: 'run';
      runId: string;
      paths: RunPaths;
      metadata: RunMetadata;
      /** By the journal: its last ENGINE_END, or RUNNING when the engine that wrote it stopped without one. */
      status: RunStatus;
      /** RUNNING in the journal: the engine was killed (or is still running in another process). */
      crashed: boolean;
      events: JournalEvent[];
    };

/** Reads the latest run of a batch run's workspace. The journal, not metadata.json, says how it ended. */
export function readRunOnDisk(workDir: string): RunOnDisk {
  if (!existsSync(workDir)) return { kind: 'none' };
  const runId = readLatestRunId(workDir);
  if (!runId) return { kind: 'none' };
  const paths = runPaths(workDir, runId);
  if (!existsSync(paths.metadata)) return { kind: 'unstarted', runId, paths };
  const metadata = readMetadata(paths.metadata);
  // A last line cut off by a kill is left out here; the engine repairs it when the run is continued.
  const events = readJournal(paths.journal, { tolerateTornTail: true });
  const lastEnd = foldEvents(events).lastEnd;
  return { kind: 'run', runId, paths, metadata, status: lastEnd?.status ?? 'RUNNING', crashed: lastEnd === undefined, events };
}

/** The model's last answer: the content of the run's last THOUGHT (a completed run's final answer). */
export function finalAnswerOf(events: readonly JournalEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    if (event.type === 'THOUGHT') return event.content ?? undefined;
  }
  return undefined;
}

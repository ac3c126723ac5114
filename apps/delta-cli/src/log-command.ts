import { followJournalEvents, followJournalLines } from '@delta/journal';
import { createTranscriptFormatter, paletteFor } from '@delta/views';
import { locateRun, type RunLocation } from './inspect/locate-run.js';

export interface LogFlags extends RunLocation {
  follow?: boolean;
  raw?: boolean;
}

/** `delta log`: the journal as a transcript (or as JSONL with --raw); -f follows a live run until it ends (or Ctrl-C). */
export async function logCommand(flags: LogFlags): Promise<number> {
  const paths = locateRun(flags);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  if (flags.follow) process.once('SIGINT', onInterrupt);
  const options = { follow: flags.follow === true, signal: stop.signal };
  try {
    if (flags.raw) await followJournalLines(paths.journal, (text) => process.stdout.write(text), options);
    else {
      const format = createTranscriptFormatter(paletteFor(process.stdout, process.env));
      await followJournalEvents(paths.journal, (event) => process.stdout.write(format(event)), options);
    }
    return 0;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

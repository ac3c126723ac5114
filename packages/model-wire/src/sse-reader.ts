import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One server-sent event: its `event:` name, if any, and its `data:` lines joined by newlines. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * Parses a `text/event-stream` body as it arrives, with `eventsource-parser` (the WHATWG rules: LF, CRLF or
 * CR line ends, a blank line ends an event, `:` comments such as `: OPENROUTER PROCESSING` skipped, `data:`
 * lines joined with newlines). This class adds the bytes-to-text decoding, a character split between two
 * chunks kept whole, and an event still open when the body ends, which counts.
 */
export class SseReader {
  private readonly decoder = new StringDecoder('utf8');
  private completed: SseEvent[] = [];
  private readonly parser: EventSourceParser = createParser({
    onEvent: (event) => this.completed.push({ event: event.event, data: event.data }),
  });

  /** Feeds a chunk of the body; returns the events it completed. */
  push(chunk: Buffer): SseEvent[] {
    return this.feed(this.decoder.write(chunk));
  }

  /** The body ended: an event not closed by a blank line still counts. */
  end(): SseEvent[] {
    // A line end, then a blank line: ends the last line (a CR left pending included) and dispatches its event.
    return this.feed(`${this.decoder.end()}\n\n`);
  }

  private feed(text: string): SseEvent[] {
    if (text !== '') this.parser.feed(text);
    const events = this.completed;
    this.completed = [];
    return events;
  }
}

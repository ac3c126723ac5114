import { StringDecoder } from 'node:string_decoder';

/** One server-sent event: its `event:` name, if any, and its `data:` lines joined by newlines. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * Parses a `text/event-stream` body as it arrives, by the WHATWG rules: lines end in LF, CRLF or CR; a
 * blank line ends an event; `:` starts a comment (keep-alives such as `: OPENROUTER PROCESSING`); `data:`
 * lines are joined with newlines. A line may span any number of chunks without being copied more than once.
 */
export class SseReader {
  private readonly decoder = new StringDecoder('utf8');
  /** Pieces of the line not yet ended. */
  private partial: string[] = [];
  /** The last chunk ended in CR: an LF starting the next one belongs to that line end. */
  private afterCr = false;
  private data: string[] = [];
  private event: string | undefined;
  private sawData = false;

  /** Feeds a chunk of the body; returns the events it completed. */
  push(chunk: Buffer): SseEvent[] {
    return this.scan(this.decoder.write(chunk));
  }

  /** The body ended: an event not closed by a blank line still counts. */
  end(): SseEvent[] {
    const events = this.scan(this.decoder.end());
    if (this.partial.length > 0) this.line(this.partial.join(''), events);
    this.partial = [];
    this.dispatch(events);
    return events;
  }

  private scan(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    if (text === '') return events;
    let start = 0;
    if (this.afterCr && text.startsWith('\n')) start = 1;
    this.afterCr = false;
    for (;;) {
      const lf = text.indexOf('\n', start);
      const cr = text.indexOf('\r', start);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      const piece = text.slice(start, end);
      const line = this.partial.length > 0 ? this.partial.join('') + piece : piece;
      this.partial = [];
      this.line(line, events);
      if (text[end] === '\r' && end + 1 < text.length) {
        start = text[end + 1] === '\n' ? end + 2 : end + 1;
      } else {
        // A CR at the very end: an LF opening the next chunk ends the same line.
        this.afterCr = text[end] === '\r';
        start = end + 1;
      }
    }
    if (start < text.length) this.partial.push(text.slice(start));
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.sawData = true;
    } else if (field === 'event') {
      this.event = value;
    }
  }

  private dispatch(events: SseEvent[]): void {
    if (this.sawData) events.push({ event: this.event, data: this.data.join('\n') });
    this.data = [];
    this.event = undefined;
    this.sawData = false;
  }
}

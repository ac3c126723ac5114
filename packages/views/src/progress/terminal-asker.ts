import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import type { HumanInputRequest } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';

/** Where the questions are asked: `input` (stdin), and `output` (stderr) for the prompts. */
export interface AskerStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

/**
 * Answers ask_human at the terminal (`-i`): the prompt goes to `output`, the answer is one line of `input`,
 * typed invisibly when the request is sensitive (on a terminal). One line reader serves every question of the
 * run, so answers piped on stdin are taken one line each, in order.
 */
export class TerminalAsker {
  constructor(private readonly streams: AskerStreams) {}

  private reader: Interface | undefined;
  private lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private closed = false;
  private muted = false;

  private open(): Interface {
    if (this.reader) return this.reader;
    const output = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.muted) this.streams.output.write(chunk);
        done();
      },
    });
    this.reader = createInterface({ input: this.streams.input, output, terminal: this.streams.input.isTTY === true });
    this.reader.on('line', (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.closed = true;
      this.waiting?.(undefined);
    });
    return this.reader;
  }

  readonly ask = async (request: HumanInputRequest, signal: AbortSignal): Promise<string> => {
    this.open();
    const hint = request.input_type === 'confirmation' ? ' [yes/no]' : '';
    this.streams.output.write(`\n? ${request.prompt}${hint}${request.sensitive ? ' (input hidden)' : ''}\n> `);
    this.muted = request.sensitive && this.streams.input.isTTY === true;
    try {
      const line = await new Promise<string | undefined>((resolve, reject) => {
        if (this.lines.length > 0) return resolve(this.lines.shift());
        if (this.closed) return resolve(undefined);
        this.waiting = resolve;
        signal.addEventListener('abort', () => reject(new Error('interrupted')), { once: true });
      });
      if (line === undefined) {
        throw new ConfigurationError('stdin ended before the question was answered.', {
          code: 'USAGE',
          hint: 'Give one answer per line on stdin, or run without -i: the run then waits for the answer (delta continue -m "<answer>").',
        });
      }
      return line;
    } finally {
      if (this.muted) this.streams.output.write('\n');
      this.muted = false;
    }
  };

  close(): void {
    this.reader?.close();
  }
}

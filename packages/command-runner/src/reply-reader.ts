import { decodeJsonReply } from './json-launch.js';
import type { Reply } from './launch-protocol.js';
import { decodeShellReply } from './sandbox/shell-launcher.js';

/**
 * The longest line a launcher may send (without its newline): a shell reply is a few dozen characters, a
 * JSON one at most an error message naming a file. The sandbox's launcher shares its namespaces with the
 * tools, which can write on its output (pidfd_getfd): a longer line ends it, as a reply that is none does,
 * so that no tool can make this process hold (and scan) what it sends without a newline.
 */
const MAX_REPLY_CHARS = { shell: 1024, json: 1 << 20 } as const;

/**
 * Reads a launcher's output as its replies, one per line, each decoded (`onReply`); at what is not a
 * reply it stops reading and calls `onRefuse`, which ends the launcher.
 */
export class ReplyReader {
  private buffered = '';
  /** It sent what is not a reply and was killed: nothing more it sends is read. */
  private refused = false;

  constructor(
    private readonly protocol: 'json' | 'shell',
    private readonly onReply: (reply: Reply) => void,
    private readonly onRefuse: (reason: string) => void,
  ) {}

  receive(chunk: string): void {
    if (this.refused) return;
    this.buffered += chunk;
    for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      if (line === '') continue;
      const reply = this.protocol === 'shell' ? decodeShellReply(line) : decodeJsonReply(line);
      // The sandbox's launcher shares its namespaces with the tools, which can write to its output
      // (/proc/<its pid>/fd/1): what is not a reply ends it (and the sandbox), never this process.
      if (reply === null || typeof reply !== 'object') {
        this.refuse(`the command launcher sent what is not a reply: ${line.slice(0, 200)}`);
        return;
      }
      this.onReply(reply as Reply);
    }
    const limit = MAX_REPLY_CHARS[this.protocol];
    if (this.buffered.length > limit) this.refuse(`the command launcher sent a line longer than ${limit} characters`);
  }

  /** Ends a launcher that sent what is not a reply (see receive): its commands end with `reason`. */
  private refuse(reason: string): void {
    this.refused = true;
    this.buffered = '';
    this.onRefuse(reason);
  }
}

import { visibleControls } from '../inspect/visible-controls.js';
import { readMetadata, runPaths, type JournalEvent, type RunMetadata } from '@delta/journal';
import type { ModelDelta } from '@delta/engine';
import { type Palette, statusColor } from '../inspect/color.js';
import { countOf, formatCost, formatCount, formatDuration } from '../inspect/format-numbers.js';
import { fitWidth, renderStatusLine, type ProgressState } from './status-line.js';

const CLEAR_LINE = '\r\u001b[2K';
const TICK_MS = 100;

function firstLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The terminal display of `delta run` and `delta continue`: a status line kept at the bottom of the
 * terminal (stderr), with the model's thoughts and each tool's result written above it as they happen.
 */
export class LiveDisplay {
  private state: ProgressState = { iteration: 0, phase: 'starting', phaseStartedAt: Date.now(), tokens: 0 };
  private metadataFile: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private drawn = false;
  private paused = false;
  private startedAt = Date.now();
  private toolStartedAt = new Map<string, number>();
  /** The iteration whose streamed text is being written (the status line waits until it ends), if any. */
  private streaming: number | undefined;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly palette: Palette,
  ) {
    this.timer = setInterval(() => this.draw(), TICK_MS);
    this.timer.unref();
  }

  private width(): number {
    return this.stream.columns || 80;
  }

  private draw(): void {
    if (this.paused || !this.timer || this.streaming !== undefined) return;
    this.frame += 1;
    this.stream.write(`${CLEAR_LINE}${renderStatusLine(this.state, Date.now(), this.palette, this.width(), this.frame)}`);
    this.drawn = true;
  }

  private clear(): void {
    if (this.drawn) this.stream.write(CLEAR_LINE);
    this.drawn = false;
  }

  /** Ends a streamed text's line, so that what follows starts on its own. */
  private endStreamedText(): boolean {
    if (this.streaming === undefined) return false;
    this.streaming = undefined;
    this.stream.write('\n');
    return true;
  }

  /** Writes a line above the status line. */
  private above(text: string): void {
    this.endStreamedText();
    this.clear();
    this.stream.write(`${text}\n`);
    this.draw();
  }

  /** Takes the run's tokens and cost from metadata.json, which it returns (undefined while it cannot be read). */
  private refreshTotals(): RunMetadata | undefined {
    if (!this.metadataFile) return undefined;
    let metadata: RunMetadata;
    try {
      metadata = readMetadata(this.metadataFile);
    } catch {
      return undefined; // not written yet, or not readable now
    }
    if (metadata.usage) this.state.tokens = Math.max(this.state.tokens, metadata.usage.total_tokens);
    if (metadata.estimated_cost) this.state.cost = metadata.estimated_cost;
    return metadata;
  }

  private prefix(iteration: number): string {
    return this.palette.dim(`[${iteration}]`);
  }

  readonly onEvent = (event: JournalEvent): void => {
    const now = Date.now();
    const width = this.width();
    switch (event.type) {
      case 'ENGINE_START': {
        this.metadataFile = runPaths(event.work_dir, event.run_id).metadata;
        const done = this.refreshTotals()?.iterations ?? 0;
        this.state = { ...this.state, iteration: done, phase: 'thinking', phaseStartedAt: now };
        if (event.max_iterations !== undefined) this.state.lastIteration = done + event.max_iterations;
        this.above(
          this.palette.dim(
            fitWidth(`run ${event.run_id}${event.resumed ? ' (resumed)' : ''}${event.model ? ` · ${event.model}` : ''}`, width),
          ),
        );
        break;
      }
      case 'THOUGHT': {
        // Its text is on the screen already when it was streamed.
        const streamed = this.endStreamedText();
        if (event.usage) this.state.tokens += event.usage.total_tokens;
        this.state = {
          ...this.state,
          iteration: event.iteration,
          phase: event.tool_calls.length > 0 ? 'tool' : 'finishing',
          phaseStartedAt: now,
        };
        delete this.state.toolName;
        const text = event.content ? visibleControls(firstLine(event.content)) : '';
        if (text !== '' && !streamed)
          this.above(
            `${this.prefix(event.iteration)} ${this.palette.magenta('●')} ${fitWidth(text, width - 8 - String(event.iteration).length)}`,
          );
        break;
      }
      case 'ACTION_REQUEST':
        this.refreshTotals();
        this.toolStartedAt.set(event.action_id, now);
        this.state = { ...this.state, phase: 'tool', toolName: event.tool_name, phaseStartedAt: now };
        break;
      case 'ACTION_RESULT': {
        this.refreshTotals();
        const started = this.toolStartedAt.get(event.action_id);
        this.toolStartedAt.delete(event.action_id);
        const mark = event.status === 'SUCCESS' ? this.palette.green('✓') : this.palette.red('✗');
        const facts = [
          event.exit_code === null ? event.status.toLowerCase() : `exit ${event.exit_code}`,
          ...(started === undefined ? [] : [formatDuration(now - started)]),
        ].join(', ');
        const name = visibleControls(event.tool_name);
        const head = `${name} (${facts})`;
        const observation = visibleControls(firstLine(event.observation_content));
        const room = width - head.length - 10 - String(event.iteration).length;
        this.above(
          `${this.prefix(event.iteration)} ${mark} ${this.palette.bold(name)} ${this.palette.dim(`(${facts})`)}${observation && room > 10 ? ` ${this.palette.dim(fitWidth(observation, room))}` : ''}`,
        );
        this.state = { ...this.state, phase: 'thinking', phaseStartedAt: now };
        delete this.state.toolName;
        break;
      }
      case 'HUMAN_INPUT_REQUEST':
        this.above(`${this.prefix(event.iteration)} ${this.palette.yellow('?')} ${visibleControls(event.prompt)}`);
        this.state = { ...this.state, phase: 'waiting', phaseStartedAt: now };
        // The question is answered at this terminal (or the run pauses): no redrawing under the prompt.
        this.clear();
        this.paused = true;
        break;
      case 'HUMAN_INPUT_RECEIVED':
        this.paused = false;
        this.state = { ...this.state, phase: 'thinking', phaseStartedAt: now };
        break;
      case 'SYSTEM_MESSAGE':
        if (event.level !== 'INFO') this.above(this.palette.yellow(`${event.level.toLowerCase()}: ${visibleControls(event.content)}`));
        break;
      case 'HOOK_EXECUTION_AUDIT':
        if (event.status === 'FAILED') this.above(this.palette.yellow(`hook ${event.hook_name} failed (${event.io_path_ref})`));
        break;
      case 'ERROR':
        this.above(this.palette.red(`error: ${visibleControls(event.error_message)}`));
        break;
      case 'ENGINE_END': {
        this.refreshTotals();
        this.paused = false;
        const color = statusColor(this.palette, event.status);
        const totals = [
          countOf(event.final_iteration, 'iteration'),
          `${formatCount(this.state.tokens)} tokens`,
          ...(this.state.cost ? [`~${formatCost(this.state.cost)}`] : []),
          formatDuration(now - this.startedAt),
        ];
        this.stop();
        this.stream.write(`${color(event.status)} ${this.palette.dim(totals.join(' · '))}\n`);
        break;
      }
      default:
        break;
    }
  };

  /** A streamed answer's text, written as it arrives, under the iteration's mark; the THOUGHT ends its line. */
  readonly onModelDelta = (delta: ModelDelta): void => {
    if (delta.type !== 'content' || this.paused || !this.timer) return;
    if (this.streaming !== delta.iteration) {
      this.endStreamedText();
      this.clear();
      this.streaming = delta.iteration;
      this.stream.write(`${this.prefix(delta.iteration)} ${this.palette.magenta('●')} `);
    }
    // Lines stay; a control character the model sent is shown, not obeyed.
    this.stream.write(visibleControls(delta.text));
  };

  /** Engine progress lines that the events do not already show (run-level notes, hook warnings). */
  readonly onLog = (line: string): void => {
    if (/^\[\d+\] /.test(line) && !/^\[\d+\] hook /.test(line)) return;
    if (/^run \S+ (of agent|ended)/.test(line) || /^continuing run /.test(line)) return;
    if (this.timer) this.above(this.palette.dim(line));
    else this.stream.write(`${line}\n`);
  };

  stop(): void {
    if (!this.timer) return;
    this.endStreamedText();
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }
}

import { SingleBar } from 'cli-progress';
import { formatDuration } from './units';

/**
 * Progress of a run: on a terminal a live bar (step n of m, current step, elapsed, ETA); otherwise
 * (CI, SSM, pipes) one plain log line per event.
 */
export class Progress {
  private bar: SingleBar | null = null;
  private readonly started = Date.now();
  private current = '';
  private readonly tty: boolean;

  constructor(private readonly total: number, stream: NodeJS.WriteStream = process.stdout, private readonly quiet = false) {
    this.tty = !!stream.isTTY && !quiet;
    if (this.tty) {
      this.bar = new SingleBar({
        format: 'step {value}/{total} {bar} {label} | {elapsed} elapsed, ETA {eta_formatted} | {note}',
        barsize: 20,
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 8,
        stream,
      });
      this.bar.start(total, 0, { label: '', elapsed: '0 s', note: '' });
    }
  }

  private elapsed(): string {
    return formatDuration(Date.now() - this.started);
  }

  /** A new step begins. */
  step(index: number, label: string): void {
    this.current = label;
    if (this.bar) this.bar.update(index - 1, { label, elapsed: this.elapsed(), note: '' });
    else this.log(`step ${index}/${this.total} ${label}`);
  }

  note(text: string): void {
    if (this.bar) this.bar.update({ note: text, elapsed: this.elapsed() });
  }

  stepDone(index: number, summary: string): void {
    if (this.bar) this.bar.update(index, { elapsed: this.elapsed(), note: summary });
    else this.log(`step ${index}/${this.total} ${this.current}: ${summary} (${this.elapsed()} elapsed)`);
  }

  /** A message that must stay visible (warnings, phases). */
  log(message: string): void {
    if (this.quiet) return;
    if (this.bar) {
      // Print above the bar, then redraw it.
      process.stdout.write(`\r\x1b[2K${message}\n`);
      this.bar.render();
    } else {
      process.stdout.write(`[s3ab ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

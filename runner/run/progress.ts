import { SingleBar } from 'cli-progress';
import { liveTotals } from '../core/intervals';
import { formatDuration } from '../core/units';

/** "412 MiB/s now" (or operations per second where nothing moved): the rate of the last second, for the progress line. */
function rateNow(bytesPerS: number, opsPerS: number): string {
  if (bytesPerS >= 1024 * 1024) return `${(bytesPerS / 1024 / 1024).toFixed(bytesPerS >= 100 * 1024 * 1024 ? 0 : 1)} MiB/s now`;
  if (opsPerS > 0) return `${opsPerS.toFixed(opsPerS >= 100 ? 0 : 1)} ops/s now`;
  return bytesPerS > 0 ? `${(bytesPerS / 1024).toFixed(0)} KiB/s now` : '';
}

/**
 * Progress of a run: on a terminal a live bar (step n of m, current step, the current interval's
 * rate, elapsed, ETA); otherwise (CI, SSM, pipes) one plain log line per event.
 */
export class Progress {
  private bar: SingleBar | null = null;
  private readonly started = Date.now();
  private current = '';
  private readonly tty: boolean;
  /** While a step runs on a terminal: the rate of the last interval, from the live counters (runner/core/intervals.ts). */
  private ticker: NodeJS.Timeout | null = null;
  private last = { at: 0, bytes: 0, ops: 0 };

  constructor(private readonly total: number, stream: NodeJS.WriteStream = process.stdout, private readonly quiet = false) {
    this.tty = !!stream.isTTY && !quiet;
    if (this.tty) {
      this.bar = new SingleBar({
        format: 'step {value}/{total} {bar} {label} | {rate} | {elapsed} elapsed, ETA {eta_formatted} | {note}',
        barsize: 20,
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 8,
        stream,
      });
      this.bar.start(total, 0, { label: '', elapsed: '0 s', note: '', rate: '' });
    }
  }

  private elapsed(): string {
    return formatDuration(Date.now() - this.started);
  }

  /** A new step begins. */
  step(index: number, label: string): void {
    this.current = label;
    if (this.bar) {
      this.bar.update(index - 1, { label, elapsed: this.elapsed(), note: '', rate: '' });
      this.startTicker();
    } else this.log(`step ${index}/${this.total} ${label}`);
  }

  private startTicker(): void {
    this.stopTicker();
    const now = liveTotals();
    this.last = { at: Date.now(), ...now };
    this.ticker = setInterval(() => {
      const t = liveTotals();
      const seconds = (Date.now() - this.last.at) / 1000;
      const rate = seconds > 0 ? rateNow((t.bytes - this.last.bytes) / seconds, (t.ops - this.last.ops) / seconds) : '';
      this.last = { at: Date.now(), ...t };
      this.bar?.update({ rate, elapsed: this.elapsed() });
    }, 1000);
    this.ticker.unref();
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  note(text: string): void {
    if (this.bar) this.bar.update({ note: text, elapsed: this.elapsed() });
  }

  stepDone(index: number, summary: string): void {
    this.stopTicker();
    if (this.bar) this.bar.update(index, { elapsed: this.elapsed(), note: summary, rate: '' });
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
    this.stopTicker();
    this.bar?.stop();
    this.bar = null;
  }
}

/** What a progress line writes to: process.stderr by default, a fake in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressOptions {
  readonly stream?: ProgressStream;
  /** Elsewhere than a terminal: a line at every this many percent. */
  readonly stepPercent?: number;
  /** On a terminal: at most one redraw per this many milliseconds, the last frame of a bar always. */
  readonly redrawMs?: number;
  readonly now?: () => number;
}

/**
 * A progress bar for the commands. On a terminal it redraws one line in place ("\r"), often. Anywhere
 * else (a log file, a pipe, CI) a "\r" frame is never erased, so a log would get one line thousands of
 * frames long: there it writes a whole line at 0%, at every `stepPercent` and at the end, nothing else.
 * Each `key` (a phase, a file) is a bar of its own.
 */
export class ProgressLine {
  private readonly stream: ProgressStream;
  private readonly stepPercent: number;
  private readonly redrawMs: number;
  private readonly now: () => number;
  private key: string | undefined = undefined;
  /** Terminal: the text on screen, not yet ended by a newline, and when it was drawn. */
  private shown = '';
  private shownAt = -Infinity;
  /** Elsewhere: the last step written for the current key, -1 for none. */
  private lastStep = -1;
  /** The current key's bar reached its total; later updates of it change nothing. */
  private finished = false;

  constructor({ stream = process.stderr, stepPercent = 10, redrawMs = 100, now = () => performance.now() }: ProgressOptions = {}) {
    this.stream = stream;
    this.stepPercent = stepPercent;
    this.redrawMs = redrawMs;
    this.now = now;
  }

  /** Shows `text` as the state of bar `key` at `done` of `total`; done >= total ends the bar. */
  update(text: string, done: number, total: number, key = ''): void {
    if (key !== this.key) {
      this.end();
      this.key = key;
      this.lastStep = -1;
      this.finished = false;
    }
    if (this.finished) return;
    const finished = done >= total;
    this.finished = finished;
    if (this.stream.isTTY) {
      const at = this.now();
      if (text !== this.shown && (finished || at - this.shownAt >= this.redrawMs)) {
        // Blanks over the rest of a longer previous frame.
        this.stream.write(`\r${text}${' '.repeat(Math.max(0, this.shown.length - text.length))}`);
        this.shown = text;
        this.shownAt = at;
      }
      if (finished) this.end();
      return;
    }
    const steps = Math.floor(100 / this.stepPercent);
    const step = finished ? steps : Math.floor((Math.max(0, done) / total) * steps);
    if (step <= this.lastStep) return;
    this.lastStep = step;
    this.stream.write(`${text}\n`);
  }

  /** Ends a line left open on a terminal, so what is printed next starts on a line of its own. */
  end(): void {
    if (this.shown !== '') this.stream.write('\n');
    this.shown = '';
    this.shownAt = -Infinity;
  }
}

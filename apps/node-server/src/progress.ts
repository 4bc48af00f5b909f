import { formatBytes } from '@hub/core-index/light';

/** Progress bars for `hub get` on a terminal: one line per file (bar, percent, size, speed, source), redrawn in place. */

export interface FileProgress {
  file: string;
  source: string;
  received: number;
  size: number;
  /** a ranged download: bytes from each source */
  sources?: Record<string, number>;
}

const WIDTH = 20;

export class ProgressBars {
  private readonly lines = new Map<string, FileProgress & { started: number }>();
  private drawn = 0;
  private lastDraw = Number.NEGATIVE_INFINITY;

  /**
   * @param write where the terminal output goes (stderr)
   * @param now the clock (injected in tests)
   * @param everyMs redraw at most this often, so a fast download is not slowed down by its own progress display
   */
  constructor(
    private readonly write: (s: string) => void,
    private readonly now: () => number = Date.now,
    private readonly everyMs = 100,
  ) {}

  /** One file's progress; redraws when `everyMs` has passed, and always when a file completes. */
  update(p: FileProgress): void {
    const prev = this.lines.get(p.file);
    this.lines.set(p.file, { ...p, started: prev?.started ?? this.now() });
    const t = this.now();
    if (t - this.lastDraw >= this.everyMs || p.received >= p.size || !prev) this.draw(t);
  }

  /** The line of one file as drawn. */
  line(file: string): string | undefined {
    const p = this.lines.get(file);
    if (!p) return undefined;
    const s = Math.max(0.001, (this.now() - p.started) / 1000);
    const frac = p.size > 0 ? Math.min(1, p.received / p.size) : 1;
    const full = Math.round(frac * WIDTH);
    const bar = `[${'#'.repeat(full)}${'.'.repeat(WIDTH - full)}]`;
    // a ranged download names every source with the bytes it sent
    const by = Object.entries(p.sources ?? {});
    const from = by.length > 0 ? by.map(([name, n]) => `${name} ${formatBytes(n)}`).join(', ') : p.source;
    return `${bar} ${String(Math.floor(frac * 100)).padStart(3)}%  ${formatBytes(p.received)}/${formatBytes(p.size)}  ${formatBytes(p.received / s)}/s  from ${from}  ${p.file}`;
  }

  /** Redraw every line in place (the cursor goes back up over the lines drawn before). */
  draw(t = this.now()): void {
    this.lastDraw = t;
    let out = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    for (const file of this.lines.keys()) out += `\r\x1b[2K${this.line(file)}\n`;
    this.drawn = this.lines.size;
    this.write(out);
  }
}

import { describe, expect, it } from 'vitest';
import { getCommand } from '../src/cli-get.js';
import { ProgressBars } from '../src/progress.js';

const MiB = 1048576;

describe('hub get progress bars (a fake terminal)', () => {
  it('draws one line per file with bar, percent, size, speed and source, redrawn in place', () => {
    let t = 0;
    const out: string[] = [];
    const bars = new ProgressBars(
      (s) => out.push(s),
      () => t,
      100,
    );
    bars.update({ file: 'a.gguf', source: 'mirror-a', received: 0, size: 10 * MiB });
    bars.update({ file: 'b.json', source: 'mirror-b', received: 0, size: MiB });
    t = 1000;
    bars.update({ file: 'a.gguf', source: 'mirror-a', received: 5 * MiB, size: 10 * MiB });
    const last = out.at(-1) ?? '';
    // back up over the two lines drawn before, then one cleared line per file
    expect(last.startsWith('\x1b[2A')).toBe(true);
    const lines = last.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('[##########..........]  50%  5.00 MiB/10.0 MiB  5.00 MiB/s  from mirror-a  a.gguf');
    expect(lines[1]).toContain('0%  0 B/1.00 MiB');
    expect(lines[1]).toContain('from mirror-b  b.json');
  });

  it('redraws at most once per interval however many chunks arrive, and always on completion', () => {
    let t = 0;
    const out: string[] = [];
    const bars = new ProgressBars(
      (s) => out.push(s),
      () => t,
      100,
    );
    bars.update({ file: 'a', source: 's', received: 0, size: 1000 });
    const first = out.length;
    for (let i = 1; i < 999; i++) {
      t = i * 0.05; // 1,000 chunks within 50 ms
      bars.update({ file: 'a', source: 's', received: i, size: 1000 });
    }
    expect(out.length).toBe(first);
    bars.update({ file: 'a', source: 's', received: 1000, size: 1000 });
    expect(out.length).toBe(first + 1);
    expect(out.at(-1)).toContain('100%');
  });

  it('getCommand writes JSON lines, never bars, when not on a terminal', async () => {
    const outLines: string[] = [];
    const errLines: string[] = [];
    const code = await getCommand(['acme/tiny', '--hub', 'http://127.0.0.1:9'], {
      out: (l) => outLines.push(l),
      err: (l) => errLines.push(l),
      tty: false,
      env: {},
      fetch: (async () => {
        throw new TypeError('fetch failed');
      }) as typeof fetch,
    });
    expect(code).toBe(1);
    expect(errLines.join('')).not.toContain('\x1b[');
  });
});

import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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

  it('a file fetched from several sources names each with its bytes', () => {
    const out: string[] = [];
    const bars = new ProgressBars(
      (s) => out.push(s),
      () => 0,
      100,
    );
    bars.update({ file: 'big.gguf', source: 'a', received: 3 * MiB, size: 10 * MiB, sources: { a: MiB, b: 2 * MiB } });
    expect(bars.line('big.gguf')).toContain('30%  3.00 MiB/10.0 MiB');
    expect(bars.line('big.gguf')).toContain('from a 1.00 MiB, b 2.00 MiB  big.gguf');
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

  it('getCommand writes JSON lines, never bars, when not on a terminal; bars on one', async () => {
    // a stand-in hub answered by an injected fetch: model info, tree, health, and the bytes of one SYNTHETIC file
    const bytes = new TextEncoder().encode('SYNTHETIC bytes for the progress test\n'.repeat(100));
    const sha = createHash('sha256').update(bytes).digest('hex');
    const fakeFetch = (async (input: string | URL | Request) => {
      const url = new URL(String(input));
      const json = (v: unknown) => new Response(JSON.stringify(v), { headers: { 'content-type': 'application/json' } });
      if (url.pathname === '/api/hub/health') return json({ order: ['m'], sources: { m: { ok: true, checked: null } } });
      if (url.pathname === '/api/models/acme/tiny') return json({ id: 'acme/tiny', sha: 'c'.repeat(40) });
      if (url.pathname.startsWith('/api/models/acme/tiny/tree/'))
        return json([{ type: 'file', path: 'w.bin', size: bytes.length, oid: sha, lfs: { oid: sha, size: bytes.length } }]);
      return new Response(bytes);
    }) as typeof fetch;
    const run = async (tty: boolean) => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-progress-'));
      const out: string[] = [];
      const err: string[] = [];
      const code = await getCommand(['acme/tiny', '--hub', 'http://hub.test', '--to', dir], {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        tty,
        env: {},
        fetch: fakeFetch,
      });
      await rm(dir, { recursive: true, force: true });
      return { code, out, err: err.join('') };
    };
    const plain = await run(false);
    expect(plain.code).toBe(0);
    const events = plain.out.map((l) => JSON.parse(l) as { event: string; status?: string });
    // the signature verdict comes first (the stand-in model carries none), then the file's own events
    expect(events.map((e) => e.event)).toEqual(['signature', 'attempt', 'file']);
    expect(events[0]?.status).toBe('none');
    expect(plain.err).not.toContain('\x1b[');
    const terminal = await run(true);
    expect(terminal.code).toBe(0);
    expect(terminal.out).toEqual([]);
    expect(terminal.err).toContain('100%');
    expect(terminal.err).toContain('\x1b[2K');
  });
});

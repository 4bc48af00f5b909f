import { describe, expect, it } from 'vitest';
import type { SourceObject } from '../index/schemas.js';
import { expandTemplate, type SourceConfig } from '../index/source-kinds.js';
import { chooseSource, MemorySourceHealth } from './source-health.js';

const rev = 'a'.repeat(40);
const src = (source: string, extra: Partial<SourceObject> = {}): SourceObject => ({
  kind: 'model-hub.source',
  model: 'o/n',
  revision: rev,
  source,
  type: 'http',
  ...extra,
});
const configs: SourceConfig[] = [
  { name: 'a', display: 'A', token: 'ta', kind: 'http', url: 'http://a.test/{id}/resolve/{revision}/{path}' },
  { name: 'b', display: 'B', token: 'tb', kind: 'http', url: 'http://b.test/{owner}--{name}/{path}' },
  { name: 'ipfs', display: 'IPFS', token: 'ipfs', kind: 'ipfs', url: 'https://gw.test/' },
];

describe('expandTemplate', () => {
  it('fills every placeholder and percent-encodes path segments, keeping /', () => {
    expect(expandTemplate('http://x/{id}/r/{revision}/{path}', { id: 'o/n', revision: rev, path: 'a b/c#d?.gguf' })).toBe(
      `http://x/o/n/r/${rev}/a%20b/c%23d%3F.gguf`,
    );
    expect(expandTemplate('{owner}|{name}|{path}', { id: 'Org/Model.v1', revision: rev, path: 'plain/file.bin' })).toBe(
      'Org|Model.v1|plain/file.bin',
    );
    expect(expandTemplate('no placeholders', { id: 'o/n', revision: rev, path: 'p' })).toBe('no placeholders');
  });
});

describe('chooseSource', () => {
  const health = new MemorySourceHealth(configs, ['a', 'b', 'ipfs']);
  const input = { id: 'o/n', revision: rev, path: 'f.bin', sources: [src('b'), src('a'), src('ipfs', { type: 'ipfs', root: 'bafyroot' })] };

  it('takes the first ok source in order that holds the file', () => {
    const r = health.choose(input);
    expect(r).toMatchObject({ ok: true, choice: { source: 'a', display: 'A', url: `http://a.test/o/n/resolve/${rev}/f.bin` } });
  });

  it('lists every live holder in the same order, the choice first (the Link rel="duplicate" list)', () => {
    const r = health.choose(input);
    expect(r.ok && r.live.map((c) => [c.source, c.url])).toEqual([
      ['a', `http://a.test/o/n/resolve/${rev}/f.bin`],
      ['b', 'http://b.test/o--n/f.bin'],
      ['ipfs', 'https://gw.test/ipfs/bafyroot/f.bin'],
    ]);
    const via = health.choose({ ...input, via: 'tb' });
    expect(via.ok && via.live.map((c) => c.source)).toEqual(['b', 'a', 'ipfs']);
    const h = new MemorySourceHealth(configs, ['a', 'b', 'ipfs']);
    h.record('b', { ok: false, reason: 'unreachable', at: 1 });
    const down = h.choose(input);
    expect(down.ok && down.live.map((c) => c.source)).toEqual(['a', 'ipfs']);
  });

  it('puts a known /via/ token first, and ignores an unknown one', () => {
    expect(health.choose({ ...input, via: 'tb' })).toMatchObject({ ok: true, choice: { source: 'b', url: 'http://b.test/o--n/f.bin' } });
    expect(health.choose({ ...input, via: 'IPFS' })).toMatchObject({
      ok: true,
      choice: { source: 'ipfs', url: 'https://gw.test/ipfs/bafyroot/f.bin' },
    });
    expect(health.choose({ ...input, via: 'nope' })).toMatchObject({ ok: true, choice: { source: 'a' } });
  });

  it('skips sources that are down or do not hold the file, and says when none is left', () => {
    const h = new MemorySourceHealth(configs, ['a', 'b']);
    h.record('a', { ok: false, reason: 'unreachable', at: 1 });
    expect(h.choose(input)).toMatchObject({ ok: true, choice: { source: 'b' } });
    const partial = { ...input, sources: [src('a'), src('b', { paths: ['other.bin'] })] };
    expect(h.choose(partial)).toEqual({ ok: false, reason: 'none-ok', holders: ['a'] });
    expect(h.choose({ ...input, sources: [] })).toEqual({ ok: false, reason: 'no-source', holders: [] });
    expect(h.snapshot().sources.a).toEqual({ ok: false, checked: null, reason: 'unreachable' });
  });

  it('never redirects to a source marked redirect: false (P2P)', () => {
    const r = chooseSource(
      { ...input, sources: [src('p2p')] },
      ['p2p'],
      () => ({ ok: true, checked: null }),
      (n) => (n === 'p2p' ? { name: 'p2p', display: 'P2P', token: 'p2p', kind: 'http', redirect: false } : undefined),
    );
    expect(r.ok).toBe(false);
  });
});

describe('a source beside the hub (onHubHost)', () => {
  const beside: SourceConfig[] = [
    { name: 'local', display: 'Local', token: 'l', kind: 'http', url: 'http://localhost:9001/{id}/{path}', onHubHost: true },
  ];
  const health = new MemorySourceHealth(beside, ['local']);
  const input = { id: 'o/n', revision: rev, path: 'f.bin', sources: [src('local')] };
  const at = (hubOrigin: string, otherHostName = false) => health.choose({ ...input, hubOrigin, otherHostName });

  it("is named by the host of the origin the client reached the hub by, with the source's own port and scheme", () => {
    for (const [origin, host] of [
      ['http://127.0.0.1:8080', '127.0.0.1:9001'],
      ['http://127.0.0.2:8080', '127.0.0.2:9001'],
      ['http://localhost:8080', 'localhost:9001'],
      ['http://[::1]:8080', '[::1]:9001'],
      ['http://hub.lan', 'hub.lan:9001'],
    ] as const)
      expect(at(origin), origin).toMatchObject({ ok: true, choice: { url: `http://${host}/o/n/f.bin` } });
  });

  it('gives a client that follows only another host name (Ollama) the other loopback spelling, and no other change', () => {
    expect(at('http://127.0.0.1:8080', true)).toMatchObject({ choice: { url: 'http://localhost:9001/o/n/f.bin' } });
    expect(at('http://localhost:8080', true)).toMatchObject({ choice: { url: 'http://127.0.0.1:9001/o/n/f.bin' } });
    expect(at('http://hub.lan', true)).toMatchObject({ choice: { url: 'http://hub.lan:9001/o/n/f.bin' } });
  });

  it('is never offered to a client that reached the hub over https: the failure names it', () => {
    expect(at('https://models.example.org')).toEqual({ ok: false, reason: 'none-ok', holders: ['local'], plainHttp: ['local'] });
  });
});

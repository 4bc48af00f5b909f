import { describe, expect, it } from 'vitest';
import type { SourceObject } from '../index/schemas.js';
import { sha256Hex } from '../index/sha256.js';
import { expandTemplate, type SourceConfig } from '../index/source-kinds.js';
import { holdingOf, MIRROR_FORMAT, type MirrorManifest, mirrorHolds, parseMirrorManifest } from './mirror-manifest.js';
import { probeMirror } from './probe-mirror.js';
import { chooseSource } from './source-health.js';

// SYNTHETIC hashes and files
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const manifest = (files: Array<{ sha256: string; size: number }>): MirrorManifest => ({
  format: MIRROR_FORMAT,
  updated: '2026-11-25T00:00:00.000Z',
  verified: null,
  files,
  models: [],
});
const mirror: SourceConfig = { name: 'local', display: 'Local', token: 'local', kind: 'mirror', url: 'http://mirror.lan:8090/' };
const origin: SourceConfig = {
  name: 'origin',
  display: 'Origin',
  token: 'o',
  kind: 'http',
  url: 'https://origin.example/{id}/resolve/{revision}/{path}',
};
const indexed: SourceObject[] = [{ kind: 'model-hub.source', model: 'acme/m', revision: 'c'.repeat(40), source: 'origin', type: 'http' }];
const configs = (n: string) => [mirror, origin].find((c) => c.name === n);
const ok = () => ({ ok: true, checked: null });

describe('{sha256} in URL templates', () => {
  it('expands beside the other placeholders', () => {
    expect(
      expandTemplate('https://cas.lan/{owner}/sha256/{sha256}?p={path}', { id: 'acme/m', revision: 'main', path: 'a b.bin', sha256: A }),
    ).toBe(`https://cas.lan/acme/sha256/${A}?p=a%20b.bin`);
  });
});

describe('a mirror source in the choice', () => {
  const input = { id: 'acme/m', revision: 'c'.repeat(40), path: 'w.bin', sources: indexed };
  const held = holdingOf(manifest([{ sha256: A, size: 10 }]), 0);

  it('holds exactly the SHA-256s its manifest lists, in the configured order', () => {
    const first = chooseSource({ ...input, sha256: A }, ['local', 'origin'], ok, configs, [{ config: mirror, holding: held }]);
    expect(first).toMatchObject({ ok: true, choice: { source: 'local', display: 'Local', url: `http://mirror.lan:8090/sha256/${A}` } });
    const notHeld = chooseSource({ ...input, sha256: B }, ['local', 'origin'], ok, configs, [{ config: mirror, holding: held }]);
    expect(notHeld.ok && notHeld.choice.source).toBe('origin');
    const later = chooseSource({ ...input, sha256: A }, ['origin', 'local'], ok, configs, [{ config: mirror, holding: held }]);
    expect(later.ok && later.choice.source).toBe('origin');
    const via = chooseSource({ ...input, sha256: A, via: 'local' }, ['origin', 'local'], ok, configs, [{ config: mirror, holding: held }]);
    expect(via.ok && via.choice.source).toBe('local');
  });

  it('names the mirrors that lack a file when nothing can serve it', () => {
    const down = (n: string) => ({ ok: n !== 'origin', checked: null });
    expect(chooseSource({ ...input, sha256: B }, ['local', 'origin'], down, configs, [{ config: mirror, holding: held }])).toEqual({
      ok: false,
      reason: 'none-ok',
      holders: ['origin'],
      lacking: ['local'],
    });
    expect(mirrorHolds(held, A.toUpperCase())).toBe(true);
    expect(mirrorHolds(undefined, A)).toBe(false);
  });
});

describe('probeMirror', () => {
  const file = new TextEncoder().encode('held bytes\n');
  const sha = sha256Hex(file);
  const serve =
    (body: Uint8Array, text = JSON.stringify(manifest([{ sha256: sha, size: file.byteLength }]))) =>
    async (url: string | URL | Request) =>
      String(url).endsWith('/manifest.json') ? new Response(text) : new Response(body as Uint8Array<ArrayBuffer>);
  const options = (f: typeof fetch) => ({ fetch: f, now: () => 0, timeoutSeconds: 5, maxBytes: 1 << 20 });

  it('reads the manifest and hashes one held file', async () => {
    const r = await probeMirror(mirror, options(serve(file) as typeof fetch), 0);
    expect(r.outcome).toMatchObject({ ok: true, reason: 'verified', url: `http://mirror.lan:8090/sha256/${sha}` });
    expect(r.holding).toMatchObject({ files: 1, bytes: file.byteLength, sha256: [sha] });
  });

  it('fails on a flipped byte, and on a manifest that is not one', async () => {
    const flipped = file.slice();
    flipped[0] = (flipped[0] as number) ^ 1;
    expect((await probeMirror(mirror, options(serve(flipped) as typeof fetch), 0)).outcome).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
    const bad = await probeMirror(mirror, options(serve(file, '{"format":"other"}') as typeof fetch), 0);
    expect(bad.outcome).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(bad.holding).toBeUndefined();
    expect(() => parseMirrorManifest('nope')).toThrow(/not JSON/);
  });
});

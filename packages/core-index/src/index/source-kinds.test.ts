import { describe, expect, it } from 'vitest';
import { holdingOf, MIRROR_FORMAT } from '../sources/mirror-manifest.js';
import { probeConfigProblem, probeUrl } from '../sources/prober.js';
import { chooseSource } from '../sources/source-health.js';
import { SourceObjectSchema } from './schemas.js';
import {
  DEFAULT_SOURCES,
  fileUrlAt,
  probeBase,
  SOURCE_KIND_INFO,
  SOURCE_KINDS,
  type SourceConfig,
  type SourceKind,
  sourceKindProblem,
} from './source-kinds.js';

const REV = 'a'.repeat(40);
const SHA = 'c'.repeat(64);

/** One example per kind (a Record, so a new kind fails the type check here until it has one). */
const EXAMPLES: Record<SourceKind, { config: SourceConfig; object: Record<string, unknown>; file: string; probe: string }> = {
  http: {
    config: { name: 'm', display: 'M', token: 'm', kind: 'http', url: 'https://m.test/{id}/r/{revision}/{path}' },
    object: { source: 'm', type: 'http' },
    file: `https://m.test/o/n/r/${REV}/a%20b/c.gguf`,
    probe: 'https://m.test/',
  },
  ipfs: {
    config: { name: 'ipfs', display: 'IPFS', token: 'ipfs', kind: 'ipfs', url: 'https://gw.test/' },
    object: { source: 'ipfs', type: 'ipfs', root: 'bafyroot' },
    file: 'https://gw.test/ipfs/bafyroot/a%20b/c.gguf',
    probe: 'https://gw.test/',
  },
  mirror: {
    config: { name: 'local', display: 'Local', token: 'local', kind: 'mirror', url: 'http://mirror.test/' },
    object: { source: 'local', type: 'mirror' },
    file: `http://mirror.test/sha256/${SHA}`,
    probe: 'http://mirror.test/',
  },
};

describe('source kinds: one table for config, schema, URL building and probing', () => {
  for (const kind of SOURCE_KINDS) {
    const ex = EXAMPLES[kind];
    it(`${kind}: the schema takes it, a file's URL is built, the probe base is found, the config is accepted`, () => {
      const object = SourceObjectSchema.parse({ kind: 'model-hub.source', model: 'o/n', revision: REV, ...ex.object });
      expect(SOURCE_KIND_INFO[kind].url).toBeTruthy();
      expect(fileUrlAt(kind, ex.config.url, { id: 'o/n', revision: REV, path: 'a b/c.gguf', root: 'bafyroot', sha256: SHA })).toBe(ex.file);
      expect(probeBase(kind, ex.config.url as string)).toBe(ex.probe);
      expect(sourceKindProblem(ex.config)).toBeUndefined();
      // chooseSource reaches the same URL through the configured source (a mirror by what its manifest holds)
      const holding = holdingOf({ format: MIRROR_FORMAT, updated: '', verified: null, files: [{ sha256: SHA, size: 1 }], models: [] }, 0);
      const chosen = chooseSource(
        { id: 'o/n', revision: REV, path: 'a b/c.gguf', sha256: SHA, sources: kind === 'mirror' ? [] : [object] },
        [ex.config.name],
        () => ({ ok: true, checked: null }),
        (n) => (n === ex.config.name ? ex.config : undefined),
        kind === 'mirror' ? [{ config: ex.config, holding }] : [],
      );
      expect(chosen).toMatchObject({ ok: true, choice: { url: ex.file } });
    });
  }

  it('an unknown kind is refused by config (probe check) and by the schema, never built into a URL', () => {
    const bad = { name: 'x', display: 'X', token: 'x', kind: 'ftp', url: 'ftp://x.test/{path}' } as unknown as SourceConfig;
    expect(sourceKindProblem(bad)).toBe('source x: kind "ftp" is not one of http, ipfs, mirror');
    expect(probeConfigProblem(bad)).toBe('source x: kind "ftp" is not one of http, ipfs, mirror');
    expect(probeUrl({ ...bad, probe: { path: 'a', sha256: 'b'.repeat(64) } })).toBeUndefined();
    expect(SourceObjectSchema.safeParse({ kind: 'model-hub.source', model: 'o/n', revision: REV, source: 'x', type: 'ftp' }).success).toBe(
      false,
    );
    expect(() => fileUrlAt('ftp' as never, 'ftp://x', { id: 'o/n', revision: REV, path: 'a' })).toThrow('unknown source kind "ftp"');
  });

  it('the default IPFS gateway is the ipfs kind default and the default ipfs source', () => {
    expect(DEFAULT_SOURCES.find((s) => s.kind === 'ipfs')?.url).toBe(SOURCE_KIND_INFO.ipfs.defaultUrl);
    expect(fileUrlAt('ipfs', undefined, { id: 'o/n', revision: REV, path: 'f', root: 'r' })).toBe(
      `${SOURCE_KIND_INFO.ipfs.defaultUrl}/ipfs/r/f`,
    );
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { selectQuant } from '@hub/client';
import { type BuildModelInput, defaultGgufFile, defaultQuant } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { repoTags } from '@hub/dialect-oci';
import { composedHub } from '@hub/hub/testing';
import { describe, expect, it } from 'vitest';

/**
 * One definition per rule (issue 13): the default GGUF file. `ollama pull …:latest`, the site's model page, MCP
 * `get_download` and `hub get owner/name` pick the same file, from core-index's defaultGgufFile / defaultQuant.
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const sha = (n: number) => n.toString(16).padStart(64, '0');

// SYNTHETIC file lists: made-up names and digests
const CASES: Array<{ name: string; paths: string[]; expected: string }> = [
  { name: 'preferred quant present', paths: ['m-Q8_0.gguf', 'm-Q4_K_M.gguf', 'm-F16.gguf'], expected: 'm-Q4_K_M.gguf' },
  {
    name: 'no preferred quant: the alphabetically first',
    paths: ['m-IQ2_M.gguf', 'm-IQ1_S.gguf', 'm-TQ1_0.gguf'],
    expected: 'm-IQ1_S.gguf',
  },
  {
    name: 'split parts and a projector are never the default',
    paths: ['mmproj-m-Q4_K_M.gguf', 'm-Q5_K_M-00002-of-00002.gguf', 'm-Q5_K_M-00001-of-00002.gguf', 'm-Q6_K.gguf'],
    expected: 'm-Q5_K_M-00001-of-00002.gguf',
  },
];

describe('the default GGUF file (one definition)', () => {
  for (const c of CASES) {
    it(`${c.name}: core, OCI latest, the site, MCP and hub get agree`, async () => {
      const files = c.paths.map((p, i) => ({ path: p, size: 1000 + i, sha256: sha(i + 1) }));
      expect(defaultGgufFile(files)?.path).toBe(c.expected);
      const model: BuildModelInput = {
        id: 'synthetic-org/default-gguf',
        revision: 'a'.repeat(40),
        license: null,
        files,
        sources: [{ source: 'mirror-a', type: 'http' }],
      };
      const t = await createTestHub({ models: [model] });
      const indexed = t.index.warm(model.id);
      if (!indexed) throw new Error('model not indexed');
      // ollama pull …:latest
      const latest = repoTags(indexed).latest;
      expect(latest.kind === 'gguf' ? latest.file.path : undefined).toBe(c.expected);
      // hub get owner/name (no quant): the files of the default quantisation
      const q = defaultQuant(c.paths);
      expect(selectQuant(files).map((f) => f.path)).toContain(c.expected);
      // the site's model page: its commands name the default quantisation
      const hub = composedHub(t.deps);
      const html = (await request(hub, `/models/${model.id}`, { headers: { accept: 'text/html' } })).text;
      expect(html).toContain(`hub get ${model.id}:${q}`);
      // MCP get_download without a quant: the default quantisation's files
      const rpc = await request(hub, '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_download', arguments: { model: model.id } },
        }),
      });
      const text = rpc.text;
      expect(text).toContain(`### ${c.expected}`);
    });
  }

  it('no other source file writes the preference walk again', () => {
    // quant.ts defines it; the upstream run ranks header reads by it (a different question)
    const offenders = sources()
      .filter(({ rel }) => !rel.endsWith(path.join('index', 'quant.ts')) && !rel.endsWith(path.join('upstream', 'src', 'model.ts')))
      .filter(({ text }) => /QUANT_PREFERENCE\.(find|indexOf)|for \(const q of QUANT_PREFERENCE\)/.test(text))
      .map(({ rel }) => rel);
    expect(offenders).toEqual([]);
  });
});

/** Every source file under packages/NAME/src and apps/NAME/src but tests, with its path relative to the root. */
let sourceFiles: Array<{ rel: string; text: string }> | undefined;

function sources(): Array<{ rel: string; text: string }> {
  if (sourceFiles) return sourceFiles;
  const out: Array<{ rel: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist') continue;
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ts$/.test(name) && !name.endsWith('.test.ts')) out.push({ rel: path.relative(root, p), text: readFileSync(p, 'utf8') });
    }
  };
  for (const top of ['packages', 'apps'])
    for (const unit of readdirSync(path.join(root, top))) {
      const src = path.join(root, top, unit, 'src');
      try {
        if (statSync(src).isDirectory()) walk(src);
      } catch {
        // no src/
      }
    }
  sourceFiles = out;
  return out;
}

// Byte sizes, bounded queues, missing model ids and the other rules of issue 25 are guarded by behaviour in
// one-rule-users.test.ts (every user called and compared with the rule).

describe('the immutable-object cache (one definition)', () => {
  it('least recently used out first, never over its total, an object too large never kept, a re-set counted once', async () => {
    const { ObjectCache } = await import('@hub/core-index');
    const obj = (n: number) => ({ bytes: new Uint8Array(n), meta: {} as never });
    const c = new ObjectCache(100, 60);
    c.set('a', obj(40));
    c.set('b', obj(40));
    c.get('a'); // a is now the most recently used
    c.set('c', obj(40)); // over 100: b goes
    expect([c.has('a'), c.has('b'), c.has('c')]).toEqual([true, false, true]);
    c.set('a', obj(40)); // the same address again
    expect(c.bytes).toBe(80);
    c.set('huge', obj(61));
    expect(c.has('huge')).toBe(false);
  });

  it('both stores use it, and no file keeps its own cache of objects', () => {
    const offenders = sources()
      // the memory store holds objects (it is a store, not a cache of one)
      .filter(({ rel }) => !rel.endsWith(path.join('index', 'object-cache.ts')) && !rel.endsWith('memory-object-store.ts'))
      .filter(({ text }) => /new Map<string, StoredObject>\(\)/.test(text))
      .map(({ rel }) => rel);
    expect(offenders).toEqual([]);
    const users = sources()
      .filter(({ text }) => /new ObjectCache\(/.test(text))
      .map(({ rel }) => rel)
      .sort();
    expect(users).toEqual([
      path.join('apps', 'edge', 'src', 'r2-object-store.ts'),
      path.join('packages', 'objects', 'src', 'node', 'fs-object-store.ts'),
    ]);
  });
});

describe('the account SQL (one definition)', () => {
  it('both SQL stores run the statements of @hub/account ACCOUNT_SQL and write none of their own', () => {
    const stores = sources().filter(({ rel }) => /(sqlite|d1)-account-store\.ts$/.test(rel));
    expect(stores.map((s) => s.rel).sort()).toEqual([
      path.join('apps', 'edge', 'src', 'd1-account-store.ts'),
      path.join('apps', 'node-server', 'src', 'stores', 'sqlite-account-store.ts'),
    ]);
    for (const { rel, text } of stores) {
      expect(text, rel).toMatch(/ACCOUNT_SQL/);
      expect(text.match(/'(SELECT|INSERT|UPDATE|DELETE) /g) ?? [], rel).toEqual([]);
    }
  });
});

describe('every document a comment cites is in the repository', () => {
  const ref = (name: string) => readFileSync(path.join(root, 'docs', 'reference', name), 'utf8');
  const headings = (md: string) => md.split('\n').filter((l) => l.startsWith('#'));

  it('"design section N" and "design N.M" name a section of docs/reference/design.md', () => {
    const design = headings(ref('design.md'));
    const missing: string[] = [];
    for (const { rel, text } of sources()) {
      for (const m of text.matchAll(/design(?: section)? (\d+(?:\.\d+)?)/g)) {
        const n = m[1] as string;
        if (!design.some((h) => new RegExp(`^#+ ${n.replace('.', '\\.')}[. ]`).test(h))) missing.push(`${rel}: design ${n}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('"spec: Heading" names a heading of docs/reference/spec.md', () => {
    const spec = headings(ref('spec.md')).map((h) => h.replace(/^#+\s*/, '').toLowerCase());
    const missing: string[] = [];
    for (const { rel, text } of sources()) {
      for (const m of text.matchAll(/\(spec: ([A-Z][A-Za-z-]+(?: [A-Za-z-]+)?)/g)) {
        const cited = (m[1] as string).toLowerCase();
        if (!spec.some((h) => h.startsWith(cited) || h.includes(cited))) missing.push(`${rel}: spec: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('protocols.md and clients-2026.md are there to follow', () => {
    const cited = sources().filter(({ text }) => /protocols\.md|clients-2026\.md/.test(text));
    expect(cited.length).toBeGreaterThan(0);
    expect(ref('protocols.md').length).toBeGreaterThan(1000);
    expect(ref('clients-2026.md').length).toBeGreaterThan(1000);
  });
});

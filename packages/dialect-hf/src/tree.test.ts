import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RefsSchema, TreeEntrySchema } from '@hub/core-index';
import { request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { hfHub } from './testing/hf-hub.js';
import { parsePathsInfo, splitRefPath } from './tree.js';

/** Tests over the SYNTHETIC fixture index of @hub/core-index/testing. */

const BERT = '/api/models/synthetic-org/bert-ish';
const COMMIT = 'b'.repeat(40);

describe('GET …/tree/{rev}', () => {
  it('lists the files directly in the root when not recursive', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, `${BERT}/tree/main`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers.link).toBeUndefined();
    expect(res.json()).toEqual([
      { type: 'file', oid: '4'.repeat(64), size: 570, path: 'config.json' },
      {
        type: 'file',
        oid: '5'.repeat(64),
        size: 440_000_000,
        path: 'model.safetensors',
        lfs: { oid: '5'.repeat(64), size: 440_000_000, pointerSize: 134 },
      },
    ]);
  });

  it('lists every file with recursive=true, oid = SHA-256, lfs on weights, no xetHash', async () => {
    const { hub, index } = await hfHub();
    for (const v of ['true', 'True', '1']) {
      const entries = (await request(hub, `${BERT}/tree/${COMMIT}?recursive=${v}`)).json<any[]>();
      expect(entries.map((e) => e.path)).toEqual(['config.json', 'model.safetensors', 'nested/dir/vocab.txt']);
      for (const e of entries) {
        expect(() => TreeEntrySchema.parse(e)).not.toThrow();
        expect(e.oid).toBe(index.warm('synthetic-org/bert-ish')?.file(e.path)?.sha256);
        expect(e).not.toHaveProperty('xetHash');
      }
      expect(entries[2]).not.toHaveProperty('lfs');
    }
  });

  it('lists a folder: files directly in it, or everything below it with recursive=true', async () => {
    const { hub } = await hfHub();
    const paths = async (url: string) => (await request(hub, url)).json<any[]>().map((e) => e.path);
    expect(await paths(`${BERT}/tree/main/nested`)).toEqual([]);
    expect(await paths(`${BERT}/tree/main/nested?recursive=true`)).toEqual(['nested/dir/vocab.txt']);
    expect(await paths(`${BERT}/tree/main/nested/dir`)).toEqual(['nested/dir/vocab.txt']);
    expect(await paths(`${BERT}/tree/main/nested%2Fdir`)).toEqual(['nested/dir/vocab.txt']);
    expect(await paths(`${BERT}/tree/main/nested/dir/`)).toEqual(['nested/dir/vocab.txt']);
  });

  it('a path that names no folder → 404 EntryNotFound with X-Repo-Commit', async () => {
    const { hub } = await hfHub();
    for (const [path, why] of [
      ['missing', /not a folder/],
      ['config.json', /is a file, not a folder/],
      ['nest', /not a folder/],
    ] as const) {
      const res = await request(hub, `${BERT}/tree/main/${path}`);
      expect(res.status).toBe(404);
      expect(res.headers['x-error-code']).toBe('EntryNotFound');
      expect(res.headers['x-repo-commit']).toBe(COMMIT);
      expect(res.json().error).toMatch(why);
      expect(res.json().error).toContain('synthetic-org/bert-ish');
    }
  });

  it('expand=true adds lastCommit naming the indexed revision', async () => {
    const { hub } = await hfHub();
    const entries = (await request(hub, `${BERT}/tree/main?recursive=true&expand=true`)).json<any[]>();
    for (const e of entries) {
      expect(() => TreeEntrySchema.parse(e)).not.toThrow();
      expect(e.lastCommit).toEqual({ id: COMMIT, title: 'Indexed revision bbbbbbb', date: '2026-11-22T00:00:00.000Z' });
    }
    const plain = (await request(hub, `${BERT}/tree/main?recursive=true&expand=false`)).json<any[]>();
    expect(plain[0]).not.toHaveProperty('lastCommit');
  });

  it('accepts HEAD, an encoded or unencoded refs/heads/main, and the commit; refuses others naming the commit', async () => {
    const { hub } = await hfHub();
    for (const rev of ['HEAD', 'refs%2Fheads%2Fmain', 'refs/heads/main', COMMIT]) {
      const res = await request(hub, `${BERT}/tree/${rev}?recursive=true`);
      expect(res.status, rev).toBe(200);
      expect(res.json()).toHaveLength(3);
    }
    expect((await request(hub, `${BERT}/tree/refs/heads/main/nested/dir`)).json<any[]>().map((e) => e.path)).toEqual([
      'nested/dir/vocab.txt',
    ]);
    for (const rev of ['refs%2Fpr%2F1', 'refs/pr/1', 'v2', 'c'.repeat(40)]) {
      const res = await request(hub, `${BERT}/tree/${rev}`);
      expect(res.status, rev).toBe(404);
      expect(res.headers['x-error-code']).toBe('RevisionNotFound');
      expect(res.json().error).toContain(COMMIT);
    }
    expect(splitRefPath('refs', 'pr/1/a/b')).toEqual({ rev: 'refs/pr/1', path: 'a/b' });
    expect(splitRefPath('main', 'a/b')).toEqual({ rev: 'main', path: 'a/b' });
  });

  it('unknown model → 404 RepoNotFound', async () => {
    const { hub, deps } = await hfHub();
    const res = await request(hub, '/api/models/ghost/model/tree/main?recursive=true');
    expect(res.status).toBe(404);
    expect(res.headers['x-error-code']).toBe('RepoNotFound');
    expect(await deps.missing.list()).toEqual(['ghost/model']);
  });

  it('answers If-None-Match with 304', async () => {
    const { hub } = await hfHub();
    const first = await request(hub, `${BERT}/tree/main?recursive=true`);
    const again = await request(hub, `${BERT}/tree/main?recursive=true`, { headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.status).toBe(304);
  });
});

describe('GET …/refs', () => {
  it('answers one branch main at the indexed commit, empty tags and converts', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, `${BERT}/refs`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    const refs = res.json();
    expect(refs).toEqual({ branches: [{ name: 'main', ref: 'refs/heads/main', targetCommit: COMMIT }], converts: [], tags: [] });
    expect(() => RefsSchema.parse(refs)).not.toThrow();
  });

  it('adds pullRequests: [] when include_prs is asked', async () => {
    const { hub } = await hfHub();
    for (const v of ['1', 'true', 'True']) expect((await request(hub, `${BERT}/refs?include_prs=${v}`)).json().pullRequests).toEqual([]);
    expect((await request(hub, `${BERT}/refs?include_prs=0`)).json()).not.toHaveProperty('pullRequests');
  });

  it('unknown model → 404 RepoNotFound', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, '/api/models/ghost/model/refs');
    expect(res.status).toBe(404);
    expect(res.headers['x-error-code']).toBe('RepoNotFound');
  });
});

describe('POST …/paths-info/{rev}', () => {
  it('reads a JSON body (huggingface.js) and answers tree entries for the files found', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, `${BERT}/paths-info/main`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer hf_secret' },
      body: JSON.stringify({ paths: ['model.safetensors', 'missing.txt', 'nested/dir/vocab.txt', 'nested'], expand: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const entries = res.json<any[]>();
    expect(entries.map((e) => e.path)).toEqual(['model.safetensors', 'nested/dir/vocab.txt']);
    expect(entries[0]).toMatchObject({
      type: 'file',
      oid: '5'.repeat(64),
      lfs: { oid: '5'.repeat(64), size: 440_000_000, pointerSize: 134 },
    });
    expect(entries[0].lastCommit.id).toBe(COMMIT);
  });

  it('reads a form body (huggingface_hub)', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, `${BERT}/paths-info/${COMMIT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'paths=config.json&paths=nested%2Fdir%2Fvocab.txt&expand=False',
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual([
      { type: 'file', oid: '4'.repeat(64), size: 570, path: 'config.json' },
      { type: 'file', oid: '6'.repeat(64), size: 231_508, path: 'nested/dir/vocab.txt' },
    ]);
  });

  it('answers 400 {error} for a body it cannot read', async () => {
    const { hub } = await hfHub();
    for (const [ct, body, why] of [
      ['application/json', '{not json', /not valid JSON/],
      ['application/json', '[1,2]', /must be an object/],
      ['application/json', '{"paths": [1]}', /paths must be an array/],
      ['application/x-www-form-urlencoded', 'expand=true', /names no paths/],
    ] as const) {
      const res = await request(hub, `${BERT}/paths-info/main`, { method: 'POST', headers: { 'content-type': ct }, body });
      expect(res.status, body).toBe(400);
      expect(res.headers['x-error-code']).toBe('BadRequest');
      expect(res.json().error).toMatch(why);
    }
  });

  it('answers 413 for a body over the limit', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, `${BERT}/paths-info/main`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect(res.json().error).toBeDefined();
  });

  it('unknown model or revision → the dialect 404s', async () => {
    const { hub } = await hfHub();
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"paths":["config.json"]}' };
    const repo = await request(hub, '/api/models/ghost/model/paths-info/main', init);
    expect([repo.status, repo.headers['x-error-code']]).toEqual([404, 'RepoNotFound']);
    const rev = await request(hub, `${BERT}/paths-info/refs%2Fpr%2F2`, init);
    expect([rev.status, rev.headers['x-error-code']]).toEqual([404, 'RevisionNotFound']);
    expect(rev.json().error).toContain(COMMIT);
  });

  it('parsePathsInfo sniffs JSON without a content type and accepts a single string path', () => {
    expect(parsePathsInfo(null, new TextEncoder().encode(' {"paths":"a.txt"}'))).toEqual({ paths: ['a.txt'], expand: false });
    expect(parsePathsInfo(null, new TextEncoder().encode('paths=a&paths=b&expand=1'))).toEqual({ paths: ['a', 'b'], expand: true });
  });
});

const BERT_TREE = fileURLToPath(
  new URL('../../../fixtures/model-host/trees/google-bert__bert-base-uncased@dd4bc8b2.tree.json', import.meta.url),
);

describe('LFS on a real tree (google-bert/bert-base-uncased, fixtures/model-host/trees)', () => {
  it('reports lfs with the upstream pointerSize on exactly the files the upstream keeps in LFS', async () => {
    // Real paths, sizes, commit and LFS SHA-256s; the three small files have only a git SHA-1 upstream,
    // so their sha256 here is a SYNTHETIC stand-in.
    const real = JSON.parse(readFileSync(BERT_TREE, 'utf8')) as {
      revision: string;
      tree: Array<{ path: string; size: number; oid: string; lfs?: { oid: string; size: number; pointerSize: number } }>;
    };
    const { hub } = await hfHub({
      models: [
        {
          id: 'google-bert/bert-base-uncased',
          revision: real.revision,
          files: real.tree.map((e, i) => ({ path: e.path, size: e.size, sha256: e.lfs?.oid ?? String(i).repeat(64) })),
          sources: [{ source: 'mirror-a', type: 'http' }],
        },
      ],
    });
    const ours = (await request(hub, `/api/models/google-bert/bert-base-uncased/tree/${real.revision}?recursive=true`)).json<any[]>();
    expect(ours.map((e) => e.path)).toEqual(real.tree.map((e) => e.path));
    for (const upstream of real.tree) {
      const mine = ours.find((e) => e.path === upstream.path);
      expect(mine.size).toBe(upstream.size);
      if (upstream.lfs) expect(mine.lfs, upstream.path).toEqual(upstream.lfs);
      else expect(mine, upstream.path).not.toHaveProperty('lfs');
    }
  });
});

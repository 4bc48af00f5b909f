import { ModelInfoSchema, ModelRowSchema } from '@hub/core-index';
import { request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './models.js';
import { hfHub, manyModels } from './testing/hf-hub.js';

/** Tests over the SYNTHETIC fixture index of @hub/core-index/testing. */

describe('GET /api/models', () => {
  it('answers an array of ModelRow with _id, id, modelId, sha and svc, cached 60 s with an ETag', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, '/api/models');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.link).toBeUndefined();
    const rows = res.json<any[]>();
    expect(rows.map((r) => r.id)).toEqual(['synthetic-org/tiny-llama-GGUF', 'synthetic-org/bert-ish', 'Other-Owner/unlisted-model']);
    for (const r of rows) {
      expect(() => ModelRowSchema.parse(r)).not.toThrow();
      expect(r._id).toMatch(/^[0-9a-f]{24}$/);
      expect(r.modelId).toBe(r.id);
      expect(r.sha).toMatch(/^[0-9a-f]{40}$/);
      expect(r.svc.manifest).toMatch(/^blake3:[0-9a-f]{64}$/);
    }
    expect(rows[0].svc).toMatchObject({
      files: 3,
      weight_bytes: 3_000_000,
      parameters: 1_000_000,
      context: 4096,
      sources: ['Mirror A', 'Mirror B'],
    });
  });

  it('answers If-None-Match with 304', async () => {
    const { hub } = await hfHub();
    const first = await request(hub, '/api/models?limit=50');
    const again = await request(hub, '/api/models?limit=50', { headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.status).toBe(304);
    expect(again.bytes.byteLength).toBe(0);
    const filtered = await request(hub, '/api/models?search=bert');
    const againFiltered = await request(hub, '/api/models?search=bert', { headers: { 'if-none-match': filtered.headers.etag as string } });
    expect(againFiltered.status).toBe(304);
  });

  it('gives rows whose listed is false no zero placeholders', async () => {
    const { hub } = await hfHub();
    for (const url of [
      '/api/models',
      '/api/models?full=true',
      '/api/models?expand=downloads&expand=likes&expand=pipeline_tag&expand=trendingScore',
    ]) {
      const row = (await request(hub, url)).json<any[]>().find((r) => r.id === 'Other-Owner/unlisted-model');
      expect(row.svc.listed).toBe(false);
      for (const k of ['downloads', 'likes', 'trendingScore', 'pipeline_tag', 'library_name'])
        expect(row, `${url} ${k}`).not.toHaveProperty(k);
      expect(row.svc).not.toHaveProperty('parameters');
      expect(row.svc).not.toHaveProperty('context');
    }
  });

  it.each(['0', '501', 'abc', '1.5', '-1', '', '1e2', '99999999'])('limit=%s → 400 {error} naming the range', async (limit) => {
    const { hub } = await hfHub();
    const res = await request(hub, `/api/models?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.headers['x-error-code']).toBe('BadRequest');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json().error).toMatch(/from 1 to 500/);
  });

  it.each(['1', '500', '50'])('limit=%s is accepted', async (limit) => {
    const { hub } = await hfHub();
    expect((await request(hub, `/api/models?limit=${limit}`)).status).toBe(200);
  });

  it('pages with an absolute Link rel="next" until every row is seen once', async () => {
    const { hub } = await hfHub({ models: manyModels(120) });
    const seen: string[] = [];
    let url: string | undefined = '/api/models?limit=50&filter=';
    const links: string[] = [];
    while (url) {
      const res = await request(hub, url);
      expect(res.status).toBe(200);
      seen.push(...res.json<any[]>().map((r) => r.id));
      const link = res.headers.link;
      if (!link) break;
      links.push(link);
      const m = /^<(https?:\/\/[^>]+)>; rel="next"$/.exec(link);
      expect(m, link).not.toBeNull();
      url = m?.[1];
    }
    expect(links).toHaveLength(2);
    expect(links[0]).toMatch(/^<http:\/\/hub\.test\/api\/models\?limit=50&filter=&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(seen[0]).toBe('synthetic-many/model-000');
    expect(seen[119]).toBe('synthetic-many/model-119');
  });

  it('pages a filtered search with the filter kept in the next link', async () => {
    const { hub } = await hfHub({ models: manyModels(120) });
    const first = await request(hub, '/api/models?filter=odd&limit=40');
    expect(first.json<any[]>()).toHaveLength(40);
    const next = /<([^>]+)>/.exec(first.headers.link ?? '')?.[1] ?? '';
    expect(next).toContain('filter=odd');
    const second = await request(hub, next);
    expect(second.json<any[]>()).toHaveLength(20);
    expect(second.headers.link).toBeUndefined();
    expect(second.json<any[]>().every((r) => r.tags.includes('odd'))).toBe(true);
  });

  it('rejects a cursor it did not issue', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, '/api/models?cursor=%%%garbage');
    expect(res.status).toBe(400);
    expect(res.headers['x-error-code']).toBe('BadRequest');
    expect(res.json().error).toMatch(/cursor/);
    expect(decodeCursor(encodeCursor({ offset: 1234 }))).toEqual({ offset: 1234 });
    expect(decodeCursor(encodeCursor({ offset: 1234, from: 98_765 }))).toEqual({ offset: 1234, from: 98_765 });
    // an older hub's cursor (`o:50`) still reads; a third part or a sign does not
    expect(decodeCursor(btoa('o:50').replace(/=+$/, ''))).toEqual({ offset: 50 });
    expect(decodeCursor(btoa('o:1:2:3').replace(/=+$/, ''))).toBeUndefined();
    expect(decodeCursor(btoa('o:1:-2').replace(/=+$/, ''))).toBeUndefined();
    expect(decodeCursor('bm9wZQ')).toBeUndefined();
  });

  it('filters by search, author, filter (repeated or comma), pipeline_tag and library', async () => {
    const { hub } = await hfHub();
    const ids = async (q: string) => (await request(hub, `/api/models?${q}`)).json<any[]>().map((r) => r.id);
    expect(await ids('search=BERT')).toEqual(['synthetic-org/bert-ish']);
    expect(await ids('search=tiny%20llama')).toEqual(['synthetic-org/tiny-llama-GGUF']);
    expect(await ids('author=other-owner')).toEqual(['Other-Owner/unlisted-model']);
    expect(await ids('filter=gguf&filter=llama')).toEqual(['synthetic-org/tiny-llama-GGUF']);
    expect(await ids('filter=gguf,llama')).toEqual(['synthetic-org/tiny-llama-GGUF']);
    expect(await ids('filter=gguf,bert')).toEqual([]);
    expect(await ids('pipeline_tag=fill-mask')).toEqual(['synthetic-org/bert-ish']);
    expect(await ids('library=transformers')).toEqual(['synthetic-org/bert-ish']);
    expect(await ids('search=nothing-matches')).toEqual([]);
  });

  it('sorts by the host spellings and direction', async () => {
    const { hub } = await hfHub();
    const ids = async (q: string) => (await request(hub, `/api/models?${q}`)).json<any[]>().map((r) => r.id);
    expect(await ids('sort=downloads')).toEqual(['synthetic-org/bert-ish', 'synthetic-org/tiny-llama-GGUF', 'Other-Owner/unlisted-model']);
    expect(await ids('sort=downloads&direction=-1')).toEqual(await ids('sort=downloads'));
    expect((await ids('sort=likes&direction=1'))[0]).toBe('Other-Owner/unlisted-model');
    expect(await ids('sort=id')).toEqual(['Other-Owner/unlisted-model', 'synthetic-org/bert-ish', 'synthetic-org/tiny-llama-GGUF']);
    expect(await ids('sort=trending_score')).toEqual(await ids(''));
    const bad = await request(hub, '/api/models?sort=stars');
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/sort must be one of/);
    const badDir = await request(hub, '/api/models?sort=likes&direction=sideways');
    expect(badDir.status).toBe(400);
    expect(badDir.json().error).toMatch(/direction/);
  });

  it.each([
    ['true', true],
    ['True', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('full=%s adds siblings: %s', async (v, on) => {
    const { hub } = await hfHub();
    const row = (await request(hub, `/api/models?full=${v}`)).json<any[]>()[1];
    if (on)
      expect(row.siblings).toEqual([
        { rfilename: 'config.json' },
        { rfilename: 'model.safetensors' },
        { rfilename: 'nested/dir/vocab.txt' },
      ]);
    else expect(row).not.toHaveProperty('siblings');
  });

  it('expand narrows optional fields but keeps the required ones', async () => {
    const { hub } = await hfHub();
    const rows = (await request(hub, '/api/models?expand=downloads&expand[]=siblings,unknownField')).json<any[]>();
    expect(Object.keys(rows[1]).sort()).toEqual(['_id', 'downloads', 'id', 'modelId', 'sha', 'siblings', 'svc']);
    expect(rows[1].downloads).toBe(1000);
  });
});

describe('GET /api/models/{owner}/{name}', () => {
  it('answers ModelInfo with every file as a sibling', async () => {
    const { hub, index } = await hfHub();
    const res = await request(hub, '/api/models/synthetic-org/bert-ish');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers.etag).toBeDefined();
    const info = res.json();
    expect(() => ModelInfoSchema.parse(info)).not.toThrow();
    expect(info).toMatchObject({
      id: 'synthetic-org/bert-ish',
      modelId: 'synthetic-org/bert-ish',
      sha: 'b'.repeat(40),
      private: false,
      gated: false,
      disabled: false,
    });
    expect(info._id).toBe(index.warm('synthetic-org/bert-ish')?.row._id);
    expect(info.siblings).toEqual([
      { rfilename: 'config.json' },
      { rfilename: 'model.safetensors' },
      { rfilename: 'nested/dir/vocab.txt' },
    ]);
    const again = await request(hub, '/api/models/synthetic-org/bert-ish', { headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.status).toBe(304);
  });

  it('finds ids case-insensitively and answers the canonical id', async () => {
    const { hub } = await hfHub();
    const info = (await request(hub, '/api/models/SYNTHETIC-ORG/Tiny-Llama-gguf')).json();
    expect(info.id).toBe('synthetic-org/tiny-llama-GGUF');
  });

  it.each(['main', 'HEAD', 'refs%2Fheads%2Fmain', 'b'.repeat(40), 'B'.repeat(40)])('answers /revision/%s', async (rev) => {
    const { hub } = await hfHub();
    const res = await request(hub, `/api/models/synthetic-org/bert-ish/revision/${rev}`);
    expect(res.status).toBe(200);
    expect(res.json().sha).toBe('b'.repeat(40));
  });

  it.each(['refs%2Fpr%2F1', 'v1.0', 'a'.repeat(40), 'dev', 'Main'])(
    'unknown revision %s → 404 RevisionNotFound naming the commit',
    async (rev) => {
      const { hub } = await hfHub();
      const res = await request(hub, `/api/models/synthetic-org/bert-ish/revision/${rev}`);
      expect(res.status).toBe(404);
      expect(res.headers['x-error-code']).toBe('RevisionNotFound');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json().error).toContain('b'.repeat(40));
      expect(res.json().error).toContain(JSON.stringify(decodeURIComponent(rev)));
    },
  );

  it('unknown model → 404 RepoNotFound, recorded once in the missing log', async () => {
    const { hub, deps } = await hfHub();
    for (const url of ['/api/models/nobody/nothing', '/api/models/nobody/nothing/revision/main', '/api/models/Nobody/Nothing']) {
      const res = await request(hub, url);
      expect(res.status).toBe(404);
      expect(res.headers['x-error-code']).toBe('RepoNotFound');
      expect(res.json().error).toMatch(/nobody\/nothing.*not in this hub's index/i);
    }
    expect(await deps.missing.list()).toEqual(['nobody/nothing']);
  });

  it('a one-segment id is RepoNotFound too', async () => {
    const { hub } = await hfHub();
    const res = await request(hub, '/api/models/gpt2');
    expect(res.status).toBe(404);
    expect(res.headers['x-error-code']).toBe('RepoNotFound');
  });

  it('blobs=true adds size, blobId and lfs {sha256,size,pointerSize} on siblings', async () => {
    const { hub } = await hfHub();
    for (const v of ['true', 'True', '1']) {
      const info = (await request(hub, `/api/models/synthetic-org/tiny-llama-GGUF?blobs=${v}`)).json();
      expect(info.siblings).toEqual([
        { rfilename: 'README.md', size: 120, blobId: '1'.repeat(64) },
        {
          rfilename: 'tiny-llama-Q4_K_M.gguf',
          size: 1_000_000,
          blobId: '2'.repeat(64),
          lfs: { sha256: '2'.repeat(64), size: 1_000_000, pointerSize: 132 },
        },
        {
          rfilename: 'tiny-llama-Q8_0.gguf',
          size: 2_000_000,
          blobId: '3'.repeat(64),
          lfs: { sha256: '3'.repeat(64), size: 2_000_000, pointerSize: 132 },
        },
      ]);
    }
    const plain = (await request(hub, '/api/models/synthetic-org/tiny-llama-GGUF?blobs=false')).json();
    expect(plain.siblings[1]).toEqual({ rfilename: 'tiny-llama-Q4_K_M.gguf' });
  });

  it('expand on model info keeps id, sha and siblings and adds what was asked', async () => {
    const { hub } = await hfHub();
    const info = (
      await request(hub, '/api/models/synthetic-org/bert-ish/revision/HEAD?expand=downloads&expand=likes&expand=usedStorage')
    ).json();
    expect(Object.keys(info).sort()).toEqual(['_id', 'downloads', 'id', 'likes', 'modelId', 'sha', 'siblings', 'usedStorage']);
    expect(info.usedStorage).toBe(570 + 440_000_000 + 231_508);
  });
});

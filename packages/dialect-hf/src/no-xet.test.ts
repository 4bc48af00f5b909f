import { request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { hfRoutes } from './routes.js';
import { hfHub } from './testing/hf-hub.js';

/** Rules over every answer of the dialect (SYNTHETIC fixture index). */

async function everyAnswer() {
  const t = await hfHub();
  const urls: Array<{ url: string; method?: string; body?: string; headers?: Record<string, string> }> = [
    { url: '/api/models' },
    { url: '/api/models?full=true&expand=siblings&limit=1' },
    { url: '/api/models?limit=0' },
    { url: '/api/models/nobody/nothing' },
    { url: '/api/models/gpt2' },
  ];
  for (const m of t.index.models()) {
    const base = `/api/models/${m.id}`;
    urls.push(
      { url: base },
      { url: `${base}?blobs=true` },
      { url: `${base}/revision/main?expand=siblings` },
      { url: `${base}/revision/nope` },
      { url: `${base}/tree/main?recursive=true&expand=true` },
      { url: `${base}/tree/${m.revision}` },
      { url: `${base}/tree/main/not-here` },
      { url: `${base}/refs?include_prs=1` },
      {
        url: `${base}/paths-info/main`,
        method: 'POST',
        body: JSON.stringify({ paths: m.files.map((f) => f.path), expand: true }),
        headers: { 'content-type': 'application/json' },
      },
      { url: `/${m.id}/resolve/main/SHA256SUMS` },
      { url: `/${m.id}/resolve/main/missing-file` },
      { url: `/${m.id}/resolve/v9/missing-file` },
    );
    for (const f of m.files) {
      for (const method of ['GET', 'HEAD']) {
        urls.push(
          { url: `/${m.id}/resolve/main/${f.path}`, method },
          { url: `/${m.id}/raw/${m.revision}/${f.path}`, method },
          { url: `/via/b/${m.id}/resolve/main/${f.path}`, method },
        );
      }
    }
  }
  const answers = [];
  for (const u of urls)
    answers.push({
      ...u,
      res: await request(t.hub, u.url, {
        method: u.method ?? 'GET',
        headers: { accept: 'application/vnd.xet-fileinfo+json, */*', ...u.headers },
        ...(u.body ? { body: u.body } : {}),
      }),
    });
  return { ...t, answers };
}

describe('the model-host dialect', () => {
  it('never sends an X-Xet-* header, rel="xet-auth", a xet content type or xetHash', async () => {
    const { answers } = await everyAnswer();
    expect(answers.length).toBeGreaterThan(60);
    for (const { url, res } of answers) {
      for (const [k, v] of Object.entries(res.headers)) {
        expect(k.toLowerCase(), url).not.toMatch(/^x-xet-/);
        expect(v.toLowerCase(), `${url} ${k}`).not.toContain('xet');
      }
      expect(res.text.toLowerCase(), url).not.toContain('xet');
    }
  });

  it('never answers 500, and every error carries X-Error-Code and an {error} sentence', async () => {
    const { answers } = await everyAnswer();
    for (const { url, method, res } of answers) {
      expect(res.status, url).toBeLessThan(500);
      if (res.status >= 400) {
        expect(res.headers['x-error-code'], url).toBeTruthy();
        if (method !== 'HEAD') expect(typeof res.json().error, url).toBe('string');
      }
    }
  });

  it('sha in model info equals X-Repo-Commit on every resolve of every file', async () => {
    const t = await hfHub();
    for (const m of t.index.models()) {
      const sha = (await request(t.hub, `/api/models/${m.id}`)).json().sha;
      const tree = (await request(t.hub, `/api/models/${m.id}/tree/${sha}?recursive=true`)).json<any[]>();
      expect(tree.map((e) => e.path)).toEqual(m.files.map((f) => f.path));
      for (const e of tree) {
        for (const rev of ['main', sha]) {
          const res = await request(t.hub, `/${m.id}/resolve/${rev}/${e.path}`, { method: 'HEAD' });
          expect(res.status).toBe(302);
          expect(res.headers['x-repo-commit']).toBe(sha);
          expect(res.headers['x-linked-etag']).toBe(`"${e.oid}"`);
          expect(res.headers['x-linked-size']).toBe(String(e.size));
        }
      }
    }
  });

  it('API routes are cached 60 s and downloads never', () => {
    for (const r of hfRoutes()) {
      if (r.path.includes('/resolve/') || r.path.includes('/raw/')) expect(r.cache, r.path).toBe('no-store');
      else if (r.method === 'GET') expect(r.cache, r.path).toBe(60);
      expect(r.rules, r.path).toBe('read');
      expect(r.errors, r.path).toBe('hub');
    }
  });
});

import { request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { hfHub } from './testing/hf-hub.js';

/**
 * llama.cpp master's `-hf` flow, replayed request by request as `common/download.cpp` sends it
 * (clients-2026.md section 4): UA `llama-cpp/<build>`, `Accept: application/json`; refs, the recursive
 * tree at that commit (no pagination), then HEAD and GET `{repo}/resolve/{commit}/{path}`.
 * Over the SYNTHETIC fixture index of @hub/core-index/testing.
 */
const H = { 'user-agent': 'llama-cpp/b7000', accept: 'application/json' };
const REPO = 'synthetic-org/tiny-llama-GGUF';

describe('llama.cpp master (-hf) through the model-host dialect', () => {
  it('refs → tree at the commit → HEAD and Range GET of the chosen GGUF', async () => {
    const { hub } = await hfHub();
    // 1. refs: branches[] with a string name and a 40-hex targetCommit; it takes `main`.
    const refs = await request(hub, `/api/models/${REPO}/refs`, { headers: H });
    expect(refs.status).toBe(200);
    const main = refs.json().branches.find((b: { name: string }) => b.name === 'main');
    expect(main.targetCommit).toMatch(/^[0-9a-f]{40}$/);
    const commit: string = main.targetCommit;

    // 2. the tree at that commit, recursive: a JSON array, whole, with no Link to follow.
    const tree = await request(hub, `/api/models/${REPO}/tree/${commit}?recursive=true`, { headers: H });
    expect(tree.status).toBe(200);
    expect(tree.headers.link).toBeUndefined();
    const entries: { type: string; path: string; oid?: string; lfs?: { oid: string } }[] = tree.json();
    expect(Array.isArray(entries)).toBe(true);
    const files = entries.filter((e) => e.type === 'file' && typeof e.path === 'string');
    for (const f of files) expect(f.lfs?.oid ?? f.oid).toMatch(/^[0-9a-f]+$/);
    // 3. planning: Q4_K_M by the tag regex.
    const chosen = files.find((f) => /Q4_K_M[.-]/i.test(f.path) && f.path.endsWith('.gguf'));
    expect(chosen).toBeDefined();
    const url = `/${REPO}/resolve/${commit}/${chosen?.path}`;

    // 4. HEAD must end in 2xx after redirects: our hop is a redirect with the size, the ETag and the
    //    source; cpp-httplib follows it to the source (which answers 200 / 206 itself).
    const head = await request(hub, url, { method: 'HEAD', headers: H });
    expect([200, 302, 307]).toContain(head.status);
    expect(head.headers.etag).toBeTruthy();
    expect(head.headers['x-linked-size'] ?? head.headers['content-length']).toBeTruthy();
    if (head.status !== 200) expect(head.headers.location).toMatch(/^https?:\/\//);

    // 5. GET with Range (resume): the hub redirects; the Range is answered 206 at the source.
    const get = await request(hub, url, { headers: { ...H, range: 'bytes=100-' } });
    expect([302, 307]).toContain(get.status);
    expect(get.headers.location).toBe(head.headers.location);

    // Its cache: a second HEAD with If-None-Match of the ETag it stored gets 304 or the same ETag.
    const again = await request(hub, url, { method: 'HEAD', headers: { ...H, 'if-none-match': head.headers.etag ?? '' } });
    expect([304, head.status]).toContain(again.status);
    if (again.status !== 304) expect(again.headers.etag).toBe(head.headers.etag);
  });
});

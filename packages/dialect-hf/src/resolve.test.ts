import { reprDigestFromHex } from '@hub/core-index';
import { request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { sha256sums } from './resolve.js';
import { hfHub } from './testing/hf-hub.js';

/** Tests over the SYNTHETIC fixture index of @hub/core-index/testing (mirror-a on 127.0.0.1:1, mirror-b on localhost:2). */

const LLAMA = 'synthetic-org/tiny-llama-GGUF';
const LLAMA_COMMIT = 'a'.repeat(40);

describe('GET and HEAD /{owner}/{name}/resolve/{rev}/{path}', () => {
  it('answers 302 with the source, the commit and the SHA-256 the bytes must have', async () => {
    const { hub } = await hfHub();
    for (const method of ['GET', 'HEAD']) {
      const res = await request(hub, `/${LLAMA}/resolve/main/tiny-llama-Q4_K_M.gguf`, {
        method,
        headers: { accept: 'application/vnd.xet-fileinfo+json, */*', range: 'bytes=0-0' },
      });
      expect(res.status).toBe(302);
      expect(res.headers).toMatchObject({
        location: `http://127.0.0.1:1/a/synthetic-org/tiny-llama-GGUF/${LLAMA_COMMIT}/tiny-llama-Q4_K_M.gguf`,
        'x-hub-source': 'mirror-a',
        'x-repo-commit': LLAMA_COMMIT,
        'x-linked-etag': `"${'2'.repeat(64)}"`,
        etag: `"${'2'.repeat(64)}"`,
        'x-linked-size': '1000000',
        'repr-digest': reprDigestFromHex('2'.repeat(64)),
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
      });
      expect(res.headers['content-type']).not.toMatch(/xet/);
      expect(res.bytes.byteLength).toBe(0);
    }
  });

  it('Repr-Digest is the base64 of the SHA-256 bytes', () => {
    const hex = '097417381d6c7230bd9e3557456d726de6e83245ec8b24f529f60198a67b203a';
    const b64 = Buffer.from(hex, 'hex').toString('base64');
    expect(reprDigestFromHex(hex)).toBe(`sha-256=:${b64}:`);
  });

  it('answers the same on /raw/, at the commit, and at an encoded refs/heads/main', async () => {
    const { hub } = await hfHub();
    const base = await request(hub, `/${LLAMA}/resolve/main/README.md`);
    for (const url of [
      `/${LLAMA}/raw/main/README.md`,
      `/${LLAMA}/resolve/${LLAMA_COMMIT}/README.md`,
      `/${LLAMA}/resolve/refs%2Fheads%2Fmain/README.md`,
      `/${LLAMA}/resolve/HEAD/README.md`,
    ]) {
      const res = await request(hub, url, { method: 'HEAD' });
      expect(res.status, url).toBe(302);
      expect(res.headers.location).toBe(base.headers.location);
      expect(res.headers['x-repo-commit']).toBe(LLAMA_COMMIT);
    }
  });

  it('decodes nested and encoded paths and encodes them again in Location', async () => {
    const { hub } = await hfHub({
      models: [
        {
          id: 'synthetic-org/spaces',
          revision: 'd'.repeat(40),
          files: [{ path: 'sub dir/my file#1.txt', size: 5, sha256: '8'.repeat(64) }],
          sources: [{ source: 'mirror-a', type: 'http' }],
        },
      ],
    });
    for (const p of ['sub%20dir/my%20file%231.txt', 'sub%20dir%2Fmy%20file%231.txt']) {
      const res = await request(hub, `/synthetic-org/spaces/resolve/main/${p}`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`http://127.0.0.1:1/a/synthetic-org/spaces/${'d'.repeat(40)}/sub%20dir/my%20file%231.txt`);
    }
  });

  it('/via/{token}/ puts that source first when it holds the file; an unknown token falls back', async () => {
    const { hub } = await hfHub();
    const via = async (token: string, file: string) =>
      (await request(hub, `/via/${token}/${LLAMA}/resolve/main/${file}`)).headers['x-hub-source'];
    expect(await via('b', 'tiny-llama-Q4_K_M.gguf')).toBe('mirror-b');
    expect(await via('mirror-b', 'tiny-llama-Q4_K_M.gguf')).toBe('mirror-b');
    expect(await via('b', 'tiny-llama-Q8_0.gguf')).toBe('mirror-a');
    expect(await via('nowhere', 'tiny-llama-Q4_K_M.gguf')).toBe('mirror-a');
    const raw = await request(hub, `/via/b/${LLAMA}/raw/main/tiny-llama-Q4_K_M.gguf`, { method: 'HEAD' });
    expect(raw.status).toBe(302);
    expect(raw.headers.location).toMatch(/^http:\/\/localhost:2\/b\//);
  });

  it('lists every live holder as Link rel="duplicate" in the hub\'s order (RFC 6249), the redirect target first', async () => {
    const { hub, health } = await hfHub();
    const path = `${LLAMA_COMMIT}/tiny-llama-Q4_K_M.gguf`;
    const a = `<http://127.0.0.1:1/a/${LLAMA}/${path}>; rel="duplicate"; pri=1; hub-source="mirror-a"`;
    const b = (pri: number) => `<http://localhost:2/b/${LLAMA}/${path}>; rel="duplicate"; pri=${pri}; hub-source="mirror-b"`;
    const link = async (p: string) => (await request(hub, p, { method: 'HEAD' })).headers.link;
    expect(await link(`/${LLAMA}/resolve/main/tiny-llama-Q4_K_M.gguf`)).toBe(`${a}, ${b(2)}`);
    // /via/ puts its source first in the list too
    expect(await link(`/via/b/${LLAMA}/resolve/main/tiny-llama-Q4_K_M.gguf`)).toBe(`${b(1)}, ${a.replace('pri=1', 'pri=2')}`);
    // mirror-b does not hold the Q8_0 file: only mirror-a is listed
    expect(await link(`/${LLAMA}/resolve/main/tiny-llama-Q8_0.gguf`)).toBe(
      `<http://127.0.0.1:1/a/${LLAMA}/${LLAMA_COMMIT}/tiny-llama-Q8_0.gguf>; rel="duplicate"; pri=1; hub-source="mirror-a"`,
    );
    // a source that is down is not listed
    health.record('mirror-a', { ok: false, reason: 'timeout', at: Date.now() });
    expect(await link(`/${LLAMA}/resolve/main/tiny-llama-Q4_K_M.gguf`)).toBe(b(1));
  });

  it('goes to the next live source when one is down, and answers 503 with Retry-After when none is', async () => {
    const { hub, health } = await hfHub();
    // Failed just now: the first re-check is 40 s away on the default schedule, and Retry-After says so.
    health.record('mirror-a', { ok: false, reason: 'timeout', at: Date.now() });
    const q4 = await request(hub, `/${LLAMA}/resolve/main/tiny-llama-Q4_K_M.gguf`);
    expect(q4.status).toBe(302);
    expect(q4.headers['x-hub-source']).toBe('mirror-b');
    const q8 = await request(hub, `/${LLAMA}/resolve/main/tiny-llama-Q8_0.gguf`);
    expect(q8.status).toBe(503);
    expect(Number(q8.headers['retry-after'])).toBeGreaterThanOrEqual(39);
    expect(Number(q8.headers['retry-after'])).toBeLessThanOrEqual(40);
    expect(q8.headers['cache-control']).toBe('no-store');
    expect(q8.headers['x-error-code']).toBe('SourceUnavailable');
    expect(q8.json().error).toContain('mirror-a');
    expect(q8.json().error).toContain('/api/hub/health');
  });

  it('missing file → 404 EntryNotFound with X-Repo-Commit, naming path, model and revision', async () => {
    const { hub } = await hfHub();
    for (const [method, prefix] of [
      ['GET', `/${LLAMA}/resolve`],
      ['HEAD', `/${LLAMA}/resolve`],
      ['GET', `/${LLAMA}/raw`],
      ['HEAD', `/via/b/${LLAMA}/raw`],
      ['GET', `/via/a/${LLAMA}/resolve`],
    ]) {
      const res = await request(hub, `${prefix}/main/no/such-file.gguf`, { method });
      expect(res.status).toBe(404);
      expect(res.headers['x-error-code']).toBe('EntryNotFound');
      expect(res.headers['x-repo-commit']).toBe(LLAMA_COMMIT);
      expect(res.headers['cache-control']).toBe('no-store');
      if (method === 'GET') {
        const msg = res.json().error as string;
        expect(msg).toContain('"no/such-file.gguf"');
        expect(msg).toContain(LLAMA);
        expect(msg).toContain('"main"');
        expect(msg).toContain(LLAMA_COMMIT);
      }
    }
  });

  it('unknown model → 404 RepoNotFound (recorded); unknown revision → 404 RevisionNotFound naming the commit', async () => {
    const { hub, deps } = await hfHub();
    const repo = await request(hub, '/nobody/nothing/resolve/main/model.gguf', { method: 'HEAD' });
    expect([repo.status, repo.headers['x-error-code']]).toEqual([404, 'RepoNotFound']);
    expect(await deps.missing.list()).toEqual(['nobody/nothing']);
    const reserved = await request(hub, '/api/hub/resolve/main/x');
    expect([reserved.status, reserved.headers['x-error-code']]).toEqual([404, 'RepoNotFound']);
    expect(await deps.missing.list()).toEqual(['nobody/nothing']);
    const rev = await request(hub, `/${LLAMA}/resolve/refs%2Fpr%2F1/README.md`);
    expect([rev.status, rev.headers['x-error-code']]).toEqual([404, 'RevisionNotFound']);
    expect(rev.json().error).toContain(LLAMA_COMMIT);
    expect(rev.json().error).toContain('"refs/pr/1"');
  });
});

describe('GET /{owner}/{name}/resolve/main/SHA256SUMS', () => {
  it('answers `<sha256>  <path>` lines of every file in path order, at main and at the commit', async () => {
    const { hub } = await hfHub();
    const expected = `${'4'.repeat(64)}  config.json\n${'5'.repeat(64)}  model.safetensors\n${'6'.repeat(64)}  nested/dir/vocab.txt\n`;
    for (const rev of ['main', 'b'.repeat(40)]) {
      const res = await request(hub, `/synthetic-org/bert-ish/resolve/${rev}/SHA256SUMS`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.text).toBe(expected);
      const again = await request(hub, `/synthetic-org/bert-ish/resolve/${rev}/SHA256SUMS`, {
        headers: { 'if-none-match': res.headers.etag as string },
      });
      expect(again.status).toBe(304);
    }
    const bad = await request(hub, '/synthetic-org/bert-ish/resolve/v1/SHA256SUMS');
    expect([bad.status, bad.headers['x-error-code']]).toEqual([404, 'RevisionNotFound']);
  });

  it('escapes names with a backslash or newline the way sha256sum does', () => {
    const text = sha256sums({
      files: [
        { path: 'a\\b', size: 1, sha256: '1'.repeat(64) },
        { path: 'c\nd', size: 1, sha256: '2'.repeat(64) },
      ],
    } as never);
    expect(text).toBe(`\\${'1'.repeat(64)}  a\\\\b\n\\${'2'.repeat(64)}  c\\nd\n`);
  });
});

import type { ConformanceCase } from './types.js';

const GGUF = 'demo/tiny-llama-2-GGUF';
const FILE = 'llama-2-tiny-random-F16.gguf';
const BERT = 'demo/tiny-bert-synthetic';
const CORS = { 'access-control-allow-origin': '*' };
const errorCode = (code: string) => ({ 'x-error-code': code, 'cache-control': 'no-store' });
const hasError = (r: { json: any }) => (typeof r.json?.error === 'string' ? undefined : 'no {error} body');

/** The 302 every resolve/raw/via answer carries (design section 5). */
function redirect(path = FILE) {
  return {
    status: 302,
    headers: {
      ...CORS,
      'x-hub-source': 'demo-mirror',
      'x-repo-commit': /^[0-9a-f]{40}$/,
      etag: /^"[0-9a-f]{64}"$/,
      'x-linked-etag': /^"[0-9a-f]{64}"$/,
      'x-linked-size': /^\d+$/,
      'repr-digest': /^sha-256=:[A-Za-z0-9+/=]+:$/,
      'cache-control': 'no-store',
      // every live source holding the file (RFC 6249 duplicates; the demo has one), the redirect target first
      link: /^<\{mirror\}\/[^>]+>; rel="duplicate"; pri=1; hub-source="demo-mirror"$/,
    },
    check: (r: { headers: Record<string, string> }) =>
      !r.headers.location?.startsWith('{mirror}/') || !r.headers.location.endsWith(path)
        ? `location ${r.headers.location}`
        : r.headers.link !== `<${r.headers.location}>; rel="duplicate"; pri=1; hub-source="demo-mirror"`
          ? `link ${r.headers.link} does not list the location first`
          : undefined,
  };
}

/** The model-host dialect (huggingface_hub, @huggingface/hub, transformers.js, llama.cpp). */
export function hfCases(): ConformanceCase[] {
  const r302 = () => redirect();
  return [
    {
      name: 'GET /api/models lists both demo models',
      area: 'hf',
      request: { path: '/api/models' },
      expect: {
        status: 200,
        headers: { ...CORS, 'cache-control': 'public, max-age=60', etag: true },
        check: (r) => (Array.isArray(r.json) && r.json.length === 2 ? undefined : 'expected 2 rows'),
      },
    },
    {
      name: 'GET /api/models?limit=1 pages with Link rel=next',
      area: 'hf',
      request: { path: '/api/models?limit=1' },
      expect: { status: 200, headers: { link: /^<\{hub\}\/api\/models\?.*>; rel="next"$/ } },
    },
    {
      name: 'GET /api/models?limit=0 is 400',
      area: 'hf',
      request: { path: '/api/models?limit=0' },
      expect: { status: 400, headers: errorCode('BadRequest'), check: hasError },
    },
    {
      name: 'GET /api/models?search=bert&full=true',
      area: 'hf',
      request: { path: '/api/models?search=bert&full=true' },
      expect: { status: 200, check: (r) => (r.json?.[0]?.id === BERT && Array.isArray(r.json[0].siblings) ? undefined : 'search failed') },
    },
    {
      name: 'GET /api/models/{id} is ModelInfo',
      area: 'hf',
      request: { path: `/api/models/${GGUF}` },
      expect: {
        status: 200,
        headers: { 'cache-control': 'public, max-age=60' },
        check: (r, f) => (r.json?.sha === f.ggufCommit && Array.isArray(r.json.siblings) ? undefined : 'not ModelInfo'),
      },
    },
    {
      name: 'GET /api/models/{id}?blobs=true carries lfs',
      area: 'hf',
      request: { path: `/api/models/${GGUF}?blobs=true` },
      expect: { status: 200, check: (r) => (r.json?.siblings?.some((s: any) => s.lfs?.sha256) ? undefined : 'no lfs') },
    },
    {
      name: 'GET /api/models/{id} ignores case',
      area: 'hf',
      request: { path: `/api/models/${GGUF.toLowerCase()}` },
      expect: { status: 200 },
    },
    { name: 'GET …/revision/main', area: 'hf', request: { path: `/api/models/${GGUF}/revision/main` }, expect: { status: 200 } },
    {
      name: 'GET …/revision/{commit}',
      area: 'hf',
      request: { path: (f) => `/api/models/${GGUF}/revision/${f.ggufCommit}` },
      expect: { status: 200 },
    },
    {
      name: 'GET …/revision/other is 404 RevisionNotFound',
      area: 'hf',
      request: { path: `/api/models/${GGUF}/revision/v2.0` },
      expect: {
        status: 404,
        headers: errorCode('RevisionNotFound'),
        check: (r, f) => (r.text.includes(f.ggufCommit) ? undefined : 'the body does not name the indexed commit'),
      },
    },
    {
      name: 'GET …/tree/main',
      area: 'hf',
      request: { path: `/api/models/${BERT}/tree/main` },
      expect: {
        status: 200,
        check: (r) =>
          Array.isArray(r.json) && r.json.every((e: any) => e.type === 'file' && /^[0-9a-f]{64}$/.test(e.oid))
            ? undefined
            : 'not TreeEntry[]',
      },
    },
    {
      name: 'GET …/tree/main?recursive=true',
      area: 'hf',
      request: { path: `/api/models/${GGUF}/tree/main?recursive=true&expand=true` },
      expect: { status: 200 },
    },
    {
      name: 'GET …/tree/main/{folder} of a missing folder is 404 EntryNotFound',
      area: 'hf',
      request: { path: `/api/models/${GGUF}/tree/main/nope` },
      expect: { status: 404, headers: { 'x-error-code': 'EntryNotFound' } },
    },
    {
      name: 'GET …/refs has one branch',
      area: 'hf',
      request: { path: `/api/models/${GGUF}/refs` },
      expect: { status: 200, check: (r, f) => (r.json?.branches?.[0]?.targetCommit === f.ggufCommit ? undefined : 'wrong refs') },
    },
    {
      name: 'an unknown model is 404 RepoNotFound',
      area: 'hf',
      request: { path: '/api/models/someone/not-indexed-model' },
      expect: { status: 404, headers: errorCode('RepoNotFound'), check: hasError },
    },
    {
      name: 'a one-segment id is 404 RepoNotFound',
      area: 'hf',
      request: { path: '/api/models/gpt2' },
      expect: { status: 404, headers: errorCode('RepoNotFound') },
    },
    {
      name: 'POST …/paths-info with JSON',
      area: 'hf',
      request: {
        method: 'POST',
        path: `/api/models/${BERT}/paths-info/main`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ paths: ['config.json', 'missing.bin'], expand: false }),
      },
      expect: {
        status: 200,
        headers: CORS,
        check: (r) => (Array.isArray(r.json) && r.json.length === 1 && r.json[0].path === 'config.json' ? undefined : 'wrong entries'),
      },
    },
    {
      name: 'POST …/paths-info with a form',
      area: 'hf',
      request: {
        method: 'POST',
        path: `/api/models/${BERT}/paths-info/main`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'paths=config.json&paths=tokenizer.json',
      },
      expect: { status: 200, check: (r) => (r.json?.length === 2 ? undefined : 'expected 2 entries') },
    },
    {
      name: 'POST …/paths-info with broken JSON is 400',
      area: 'hf',
      request: {
        method: 'POST',
        path: `/api/models/${BERT}/paths-info/main`,
        headers: { 'content-type': 'application/json' },
        body: '{"paths": [',
      },
      expect: { status: 400, headers: errorCode('BadRequest') },
    },
    {
      name: 'POST …/paths-info over its body limit is 413',
      area: 'rules',
      request: {
        method: 'POST',
        path: `/api/models/${BERT}/paths-info/main`,
        headers: { 'content-type': 'application/json' },
        body: () => new Uint8Array(1024 * 1024 + 65536).fill(32),
      },
      expect: { status: 413, headers: errorCode('PayloadTooLarge') },
    },
    {
      name: 'GET /{id}/resolve/main/{file} is a 302 with the hashes',
      area: 'hf',
      request: { path: `/${GGUF}/resolve/main/${FILE}` },
      expect: redirect(),
    },
    {
      name: 'HEAD /{id}/resolve/main/{file} is the same 302',
      area: 'hf',
      request: { method: 'HEAD', path: `/${GGUF}/resolve/main/${FILE}` },
      expect: redirect(),
    },
    {
      name: 'resolve by the indexed commit',
      area: 'hf',
      request: { path: (f) => `/${GGUF}/resolve/${f.ggufCommit}/${FILE}` },
      expect: redirect(),
    },
    {
      name: 'resolve with credentials answers as anonymous',
      area: 'rules',
      request: { path: `/${GGUF}/resolve/main/${FILE}`, headers: { authorization: 'Bearer hf_not_a_real_token', cookie: 'session=1' } },
      expect: redirect(),
    },
    { name: 'GET /{id}/raw/main/{file} is a 302', area: 'hf', request: { path: `/${GGUF}/raw/main/${FILE}` }, expect: r302() },
    {
      name: 'GET /via/{token}/{id}/resolve/… is a 302 from that source',
      area: 'hf',
      request: { path: `/via/demo/${GGUF}/resolve/main/${FILE}` },
      expect: r302(),
    },
    {
      name: 'resolve lists every live source as Link rel="duplicate" (RFC 6249), pri from 1, the redirect target first',
      area: 'hf',
      request: { method: 'HEAD', path: `/via/demo/${BERT}/resolve/main/config.json` },
      expect: {
        ...redirect('config.json'),
        check: (r) => {
          const entries = (r.headers.link ?? '').split(/,\s*(?=<)/);
          const parsed = entries.map((e) =>
            /^<(https?:\/\/[^>]+|\{mirror\}\/[^>]+)>; rel="duplicate"; pri=(\d+); hub-source="([^"]+)"$/.exec(e),
          );
          if (parsed.some((m) => !m)) return `link ${r.headers.link}: not every entry is <URL>; rel="duplicate"; pri=N; hub-source="…"`;
          if (parsed.some((m, i) => Number(m?.[2]) !== i + 1)) return `link ${r.headers.link}: pri is not 1, 2, …`;
          if (parsed[0]?.[1] !== r.headers.location || parsed[0]?.[3] !== r.headers['x-hub-source'])
            return `link ${r.headers.link}: the first is not the Location and X-Hub-Source`;
          return undefined;
        },
      },
    },
    {
      name: 'an unknown /via/ token falls back to the default order',
      area: 'hf',
      request: { path: `/via/nowhere/${GGUF}/raw/main/${FILE}` },
      expect: r302(),
    },
    {
      name: 'resolve of a transformers-style file',
      area: 'hf',
      request: { path: `/${BERT}/resolve/main/config.json` },
      expect: { status: 302, headers: { 'x-hub-source': 'demo-mirror' } },
    },
    {
      name: 'GET /{id}/resolve/main/SHA256SUMS is a checksum list',
      area: 'hf',
      request: { path: `/${GGUF}/resolve/main/SHA256SUMS` },
      expect: {
        status: 200,
        headers: { 'content-type': /^text\/plain/, etag: true, 'cache-control': 'no-store' },
        check: (r, f) => (r.text.includes(`${f.ggufSha256}  ${FILE}`) ? undefined : 'no line for the GGUF'),
      },
    },
    {
      name: 'SHA256SUMS with If-None-Match is 304',
      area: 'hf',
      request: { path: `/${GGUF}/resolve/main/SHA256SUMS`, headers: (f) => ({ 'if-none-match': f.sumsEtag }) },
      expect: { status: 304, text: '' },
    },
    {
      name: 'resolve of a missing file is 404 EntryNotFound',
      area: 'hf',
      request: { path: `/${GGUF}/resolve/main/missing.gguf` },
      expect: { status: 404, headers: { ...errorCode('EntryNotFound'), 'x-repo-commit': /^[0-9a-f]{40}$/ } },
    },
    {
      name: 'resolve of another revision is 404 RevisionNotFound',
      area: 'hf',
      request: { path: `/${GGUF}/resolve/dev/${FILE}` },
      expect: { status: 404, headers: errorCode('RevisionNotFound') },
    },
    {
      name: 'resolve of an unknown model is 404 RepoNotFound',
      area: 'hf',
      request: { path: `/someone/unknown-model/resolve/main/${FILE}` },
      expect: { status: 404, headers: errorCode('RepoNotFound') },
    },
  ];
}

import type { ConformanceCase } from './types.js';

const CSP = 'sandbox allow-scripts allow-forms allow-downloads';
const BLAKE3_ETAG = /^"blake3:[0-9a-f]{64}"$/;

/** The spaces section and serving (reads): the bundled spaces are seeded beside the demo index on both hosts. */
export function spaceCases(): ConformanceCase[] {
  return [
    {
      name: 'GET /spaces?format=json describes the seeded spaces with a catalog',
      area: 'spaces',
      request: { path: '/spaces?format=json' },
      expect: {
        status: 200,
        headers: { 'cache-control': 'public, max-age=60' },
        check: (r, f) =>
          r.json?.inventory?.described === 2 && r.json.catalog?.address === f.spacesCatalog && r.json.catalog.format === 'model-hub.spaces'
            ? undefined
            : 'not the descriptor of the two bundled spaces',
      },
    },
    {
      name: 'GET /api/v1/objects/{spaces catalog} names verify and gguf',
      area: 'spaces',
      request: { path: (f) => `/api/v1/objects/${f.spacesCatalog}` },
      expect: {
        status: 200,
        check: (r, f) =>
          r.json?.kind === 'model-hub.spaces' && r.json.spaces?.verify === f.verifyRoot && r.json.spaces?.gguf
            ? undefined
            : 'not the spaces catalog',
      },
    },
    {
      name: 'GET /spaces/verify/ is the entry file, sandboxed, short cache',
      area: 'spaces',
      request: { path: '/spaces/verify/' },
      expect: {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
          'cache-control': 'public, max-age=60',
          etag: BLAKE3_ETAG,
          'access-control-allow-origin': '*',
        },
        text: /<title>Verify files/,
      },
    },
    {
      name: 'GET /spaces/blake3:{root}/app.js is sealed: cached forever, JavaScript',
      area: 'spaces',
      request: { path: (f) => `/spaces/${f.verifyRoot}/app.js` },
      expect: {
        status: 200,
        headers: {
          'content-type': 'text/javascript; charset=utf-8',
          'content-security-policy': CSP,
          'cache-control': 'public, max-age=31536000, immutable',
          etag: BLAKE3_ETAG,
        },
      },
    },
    {
      name: 'GET /spaces/verify (no slash) redirects to the slash',
      area: 'spaces',
      request: { path: '/spaces/verify' },
      expect: { status: 301, headers: { location: '/spaces/verify/' } },
    },
    {
      name: 'GET /spaces/{unknown}/ is 404 naming the spaces here',
      area: 'spaces',
      request: { path: '/spaces/no-such-space/' },
      expect: { status: 404, json: { error: 'No space named no-such-space. Spaces here: gguf, verify.' } },
    },
    {
      name: 'GET /spaces/verify/{unknown} is 404 naming its files',
      area: 'spaces',
      request: { path: '/spaces/verify/no-such-file.js' },
      expect: {
        status: 404,
        check: (r) =>
          /has no file no-such-file\.js\. Its files: app\.js, index\.html, style\.css\./.test(r.json?.error ?? '')
            ? undefined
            : 'not naming the files',
      },
    },
    {
      name: 'GET /spaces/-/verify is the space page',
      area: 'spaces',
      request: { path: '/spaces/-/verify' },
      expect: { status: 200, headers: { 'content-type': /^text\/html/ }, text: /Verify files/ },
    },
  ];
}

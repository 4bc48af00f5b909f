import type { ConformanceCase } from './types.js';

const CORS = { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };

/**
 * The transparency log of the archive (design 10.4) over the demo index: one archived day, so one leaf. The demo is
 * built without a signing key, so its log has tiles and entries but no checkpoint yet.
 */
export function logCases(): ConformanceCase[] {
  return [
    {
      name: 'GET /api/hub/log/checkpoint without a signing key is 404 NoCheckpoint',
      area: 'discovery',
      request: { path: '/api/hub/log/checkpoint' },
      expect: { status: 404, headers: { ...CORS, 'x-error-code': 'NoCheckpoint', 'cache-control': 'no-store' } },
    },
    {
      name: 'GET /api/hub/log/tile/0/000.p/1 is the level-0 hash tile: one SHA-256 leaf hash, immutable',
      area: 'discovery',
      request: { path: '/api/hub/log/tile/0/000.p/1' },
      expect: {
        status: 200,
        headers: { ...CORS, 'content-type': 'application/octet-stream', 'cache-control': /immutable/ },
        check: (r) => (r.bytes.byteLength === 32 ? undefined : `${r.bytes.byteLength} bytes, not one hash`),
      },
    },
    {
      name: "GET /api/hub/log/tile/entries/000.p/1 is the entry bundle: the demo day's record",
      area: 'discovery',
      request: { path: '/api/hub/log/tile/entries/000.p/1' },
      expect: {
        status: 200,
        headers: { ...CORS, 'content-type': 'application/octet-stream', 'cache-control': /immutable/ },
        check: (r, f) => {
          const length = ((r.bytes[0] ?? 0) << 8) | (r.bytes[1] ?? 0);
          if (length + 2 !== r.bytes.byteLength) return 'not one uint16-length-prefixed entry';
          const entry = JSON.parse(new TextDecoder().decode(r.bytes.subarray(2)));
          return entry.kind === 'model-hub.log-entry' && entry.catalog === f.catalog && entry.prev === null
            ? undefined
            : 'not the demo day as the first leaf';
        },
      },
    },
    {
      name: 'GET /api/hub/log/tile/0/000 names a full tile (no .p/W): 404 TileNotFound in a one-leaf log, not a bad path',
      area: 'discovery',
      request: { path: '/api/hub/log/tile/0/000' },
      expect: { status: 404, headers: { ...CORS, 'x-error-code': 'TileNotFound', 'cache-control': 'no-store' } },
    },
    {
      name: 'GET /api/hub/log/tile/entries/000.p/256 (a full tile with a width suffix) is 400 BadTilePath',
      area: 'rules',
      request: { path: '/api/hub/log/tile/entries/000.p/256' },
      expect: { status: 400, headers: { ...CORS, 'x-error-code': 'BadTilePath', 'cache-control': 'no-store' } },
    },
    {
      name: 'GET /api/hub/log/tile/0/1 (N not in 3-digit elements) is 400 BadTilePath',
      area: 'rules',
      request: { path: '/api/hub/log/tile/0/1' },
      expect: { status: 400, headers: { ...CORS, 'x-error-code': 'BadTilePath', 'cache-control': 'no-store' } },
    },
  ];
}

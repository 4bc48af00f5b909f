import { addressOf, sha256Hex } from '@hub/core-index';
import type { ConformanceCase } from './types.js';

const B = '/v2/hub/buckets/demo-eval';
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/** The buckets section and pulls (reads): the demo bucket `demo-eval:v1` is seeded beside the demo index on both hosts. */
export function bucketCases(): ConformanceCase[] {
  return [
    {
      name: 'GET /buckets?format=json describes the seeded bucket with a catalog',
      area: 'buckets',
      request: { path: '/buckets?format=json' },
      expect: {
        status: 200,
        check: (r, f) =>
          r.json?.inventory?.described === 1 &&
          r.json.catalog?.address === f.bucketsCatalog &&
          r.json.catalog.format === 'model-hub.buckets' &&
          r.json.item?.url === `${B}/tags/list` &&
          r.json.files?.url === `${B}/manifests/v1` &&
          r.json.fetch?.url === `${B}/blobs/${f.bucketBlob}` &&
          JSON.stringify(r.json.list?.map((l: { url: string }) => l.url)) ===
            JSON.stringify(['/api/v1/objects/{catalog.address}', '/v2/_catalog'])
            ? undefined
            : 'not the descriptor of the demo bucket',
      },
    },
    {
      name: 'GET /api/v1/objects/{buckets catalog} hashes to its address and names demo-eval:v1',
      area: 'buckets',
      request: { path: (f) => `/api/v1/objects/${f.bucketsCatalog}` },
      expect: {
        status: 200,
        check: (r, f) =>
          addressOf(r.bytes) === f.bucketsCatalog && r.json?.kind === 'model-hub.buckets' && r.json.buckets?.['demo-eval']?.tags?.v1
            ? undefined
            : 'not the buckets catalog',
      },
    },
    {
      name: 'GET /v2/hub/buckets/demo-eval/tags/list',
      area: 'buckets',
      request: { path: `${B}/tags/list` },
      expect: { status: 200, json: { name: 'hub/buckets/demo-eval', tags: ['v1'] } },
    },
    {
      name: 'GET the bucket manifest by tag: the media type it was pushed with, its digest',
      area: 'buckets',
      request: { path: `${B}/manifests/v1`, headers: { accept: MANIFEST } },
      expect: {
        status: 200,
        headers: { 'content-type': MANIFEST, 'docker-content-digest': /^sha256:[0-9a-f]{64}$/, 'cache-control': 'public, max-age=60' },
        check: (r) =>
          `sha256:${sha256Hex(r.bytes)}` === r.headers['docker-content-digest'] && r.json?.layers?.length === 2
            ? undefined
            : 'the manifest does not hash to its Docker-Content-Digest',
      },
    },
    {
      name: 'GET a bucket blob: the bytes hash to the digest in the URL',
      area: 'buckets',
      request: { path: (f) => `${B}/blobs/${f.bucketBlob}` },
      expect: {
        status: 200,
        headers: { 'accept-ranges': 'bytes', 'cache-control': 'public, max-age=31536000, immutable' },
        check: (r, f) => (`sha256:${sha256Hex(r.bytes)}` === f.bucketBlob ? undefined : 'the blob does not hash to its digest'),
      },
    },
    {
      name: 'HEAD the bucket manifest by tag: its digest and length, no body',
      area: 'buckets',
      request: { method: 'HEAD', path: `${B}/manifests/v1`, headers: { accept: MANIFEST } },
      expect: {
        status: 200,
        headers: { 'content-type': MANIFEST, 'docker-content-digest': /^sha256:[0-9a-f]{64}$/, 'content-length': /^[1-9][0-9]*$/ },
      },
    },
    {
      name: 'HEAD a bucket blob: Docker-Content-Digest is the digest in the URL, no body',
      area: 'buckets',
      request: { method: 'HEAD', path: (f) => `${B}/blobs/${f.bucketBlob}` },
      expect: {
        status: 200,
        headers: { 'accept-ranges': 'bytes', 'content-length': /^[1-9][0-9]*$/ },
        check: (r, f) => (r.headers['docker-content-digest'] === f.bucketBlob ? undefined : 'Docker-Content-Digest is not the blob digest'),
      },
    },
    {
      name: 'GET a bucket blob with Range: 206 and the bytes asked for',
      area: 'buckets',
      request: { path: (f) => `${B}/blobs/${f.bucketBlob}`, headers: { range: 'bytes=0-3' } },
      expect: { status: 206, headers: { 'content-range': /^bytes 0-3\/[0-9]+$/, 'content-length': '4' } },
    },
    {
      name: 'GET /v2/_catalog lists the seeded bucket as hub/buckets/demo-eval',
      area: 'buckets',
      request: { path: '/v2/_catalog?n=1000' },
      expect: {
        status: 200,
        check: (r) => (r.json?.repositories?.includes('hub/buckets/demo-eval') ? undefined : 'hub/buckets/demo-eval is not in the catalog'),
      },
    },
    {
      name: 'GET /v2/hub/buckets/{unknown}/tags/list is NAME_UNKNOWN naming the buckets here',
      area: 'buckets',
      request: { path: '/v2/hub/buckets/no-such-bucket/tags/list' },
      expect: {
        status: 404,
        check: (r) => (/Buckets here: demo-eval/.test(r.json?.errors?.[0]?.message ?? '') ? undefined : 'not naming the buckets'),
      },
    },
  ];
}

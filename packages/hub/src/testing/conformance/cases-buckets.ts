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
          r.json.item?.url === `${B}/tags/list`
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

import type { ConformanceCase } from './types.js';

const REPO = 'demo/tiny-llama-2-gguf';
const BERT = 'demo/tiny-bert-synthetic';
const DOCKER = 'application/vnd.docker.distribution.manifest.v2+json';
const OCI = 'application/vnd.oci.image.manifest.v1+json';
const V2 = { 'docker-distribution-api-version': 'registry/2.0', 'access-control-allow-origin': '*' };
const ociCode = (code: string) => (r: { json: any }) =>
  r.json?.errors?.[0]?.code === code ? undefined : `expected OCI error ${code}, got ${JSON.stringify(r.json)?.slice(0, 120)}`;

/** The OCI distribution dialect (skopeo, Ollama, llama.cpp). */
export function ociCases(): ConformanceCase[] {
  return [
    { name: 'GET /v2/ is the API check', area: 'oci', request: { path: '/v2/' }, expect: { status: 200, headers: V2, json: {} } },
    {
      name: 'GET /v2/_catalog lists the repositories',
      area: 'oci',
      request: { path: '/v2/_catalog' },
      expect: {
        status: 200,
        headers: V2,
        check: (r) =>
          r.json?.repositories?.includes(BERT) && r.json.repositories.includes(REPO) ? undefined : 'the demo repositories are missing',
      },
    },
    {
      name: 'GET /registry?format=json counts exactly the repositories /v2/_catalog lists',
      area: 'oci',
      request: { path: '/registry?format=json' },
      expect: {
        status: 200,
        check: (r, f) => {
          const hubOwn = f.repositories.filter((n) => n.startsWith('hub/')).length;
          const inv = r.json?.inventory;
          if (inv?.described !== f.repositories.length) return `described ${inv?.described}, /v2/_catalog lists ${f.repositories.length}`;
          if (inv.served_here !== hubOwn) return `served_here ${inv.served_here}, the archive and bucket repositories are ${hubOwn}`;
          return f.repositories.filter((n) => n.startsWith('hub/')).every((n) => inv.note.includes(n))
            ? undefined
            : 'the note does not name them';
        },
      },
    },
    {
      name: 'GET /v2/_catalog?n=1 pages with Link',
      area: 'oci',
      request: { path: '/v2/_catalog?n=1' },
      expect: { status: 200, headers: { link: /rel="next"/ } },
    },
    {
      name: "GET /v2/hub/index/tags/list?n=1 pages the archive's tags with Link (OCI end-8b)",
      area: 'oci',
      request: { path: '/v2/hub/index/tags/list?n=1' },
      expect: {
        status: 200,
        headers: { ...V2, link: /^<[^>]+\/v2\/hub\/index\/tags\/list\?n=1&last=\d{4}-\d{2}-\d{2}>; rel="next"$/ },
        check: (r) => (r.json?.tags?.length === 1 && /^\d{4}-\d{2}-\d{2}$/.test(r.json.tags[0]) ? undefined : 'not the first day alone'),
      },
    },
    {
      name: "GET /v2/hub/index/tags/list?n=0 is the archive's empty list without Link",
      area: 'oci',
      request: { path: '/v2/hub/index/tags/list?n=0' },
      expect: { status: 200, headers: { ...V2, link: null }, json: { name: 'hub/index', tags: [] } },
    },
    {
      name: 'GET tags/list',
      area: 'oci',
      request: { path: `/v2/${REPO}/tags/list` },
      expect: {
        status: 200,
        headers: V2,
        check: (r) => (r.json?.tags?.includes('latest') && r.json.tags.includes('F16') ? undefined : 'missing tags'),
      },
    },
    {
      name: 'GET manifests/latest with a Docker v2 Accept',
      area: 'oci',
      request: { path: `/v2/${REPO}/manifests/latest`, headers: { accept: DOCKER } },
      expect: {
        status: 200,
        headers: { ...V2, 'content-type': DOCKER, 'docker-content-digest': /^sha256:[0-9a-f]{64}$/, vary: 'Accept, User-Agent' },
        check: (r) => (r.json?.ggufFile?.rfilename ? undefined : 'no ggufFile'),
      },
    },
    {
      name: 'GET manifests/F16 with an OCI Accept',
      area: 'oci',
      request: { path: `/v2/${REPO}/manifests/F16`, headers: { accept: `${OCI}, ${DOCKER}` } },
      expect: {
        status: 200,
        headers: { 'content-type': OCI },
        check: (r) => (r.json?.mediaType === OCI ? undefined : 'not an OCI manifest'),
      },
    },
    {
      name: 'GET manifests/latest with llama.cpp Accept',
      area: 'oci',
      request: { path: `/v2/${REPO}/manifests/latest`, headers: { accept: 'application/json' } },
      expect: { status: 200, headers: { 'content-type': DOCKER } },
    },
    {
      name: 'HEAD manifests/latest',
      area: 'oci',
      request: { method: 'HEAD', path: `/v2/${REPO}/manifests/latest`, headers: { accept: DOCKER } },
      expect: { status: 200, headers: { 'docker-content-digest': true } },
    },
    {
      name: 'GET a manifest by digest',
      area: 'oci',
      request: { path: (f) => `/v2/${REPO}/manifests/${f.manifestDigest}` },
      expect: { status: 200, check: (r, f) => (r.headers['docker-content-digest'] === f.manifestDigest ? undefined : 'digest differs') },
    },
    {
      name: 'an unknown tag is 404 MANIFEST_UNKNOWN',
      area: 'oci',
      request: { path: `/v2/${REPO}/manifests/Q9_9` },
      expect: { status: 404, headers: V2, check: ociCode('MANIFEST_UNKNOWN') },
    },
    {
      name: 'the non-GGUF model has latest',
      area: 'oci',
      request: { path: `/v2/${BERT}/manifests/latest`, headers: { accept: OCI } },
      expect: { status: 200, check: (r) => (r.json?.layers?.length >= 4 ? undefined : 'too few layers') },
    },
    {
      name: 'a quant tag of a non-GGUF model is 404',
      area: 'oci',
      request: { path: `/v2/${BERT}/manifests/Q4_K_M` },
      expect: { status: 404, check: ociCode('MANIFEST_UNKNOWN') },
    },
    {
      name: 'an unknown repository is 404 NAME_UNKNOWN',
      area: 'oci',
      request: { path: '/v2/someone/nothing/tags/list' },
      expect: { status: 404, check: ociCode('NAME_UNKNOWN') },
    },
    {
      name: 'a three-part name is 404 NAME_UNKNOWN',
      area: 'oci',
      request: { path: '/v2/library/x/y/manifests/latest' },
      expect: { status: 404, check: ociCode('NAME_UNKNOWN') },
    },
    {
      name: 'GET a weight blob is a 307 to the source',
      area: 'oci',
      request: { path: (f) => `/v2/${REPO}/blobs/sha256:${f.ggufSha256}` },
      expect: {
        status: 307,
        headers: { ...V2, 'x-hub-source': 'demo-mirror', 'cache-control': 'no-store', 'docker-content-digest': true },
        check: (r) => (r.headers.location?.startsWith('{mirror}/') ? undefined : `location ${r.headers.location}`),
      },
    },
    {
      name: 'HEAD a weight blob is 200 with its exact length',
      area: 'oci',
      request: { method: 'HEAD', path: (f) => `/v2/${REPO}/blobs/sha256:${f.ggufSha256}` },
      expect: {
        status: 200,
        check: (r, f) => (r.headers['content-length'] === String(f.ggufSize) ? undefined : `content-length ${r.headers['content-length']}`),
      },
    },
    {
      name: 'GET a hub-made blob is 200 with the bytes',
      area: 'oci',
      request: { path: (f) => `/v2/${REPO}/blobs/${f.configDigest}` },
      expect: { status: 200, headers: { 'accept-ranges': 'bytes', location: true } },
    },
    {
      name: 'a Range on a hub-made blob is 206',
      area: 'oci',
      request: { path: (f) => `/v2/${REPO}/blobs/${f.configDigest}`, headers: { range: 'bytes=0-9' } },
      expect: { status: 206, headers: { 'content-range': /^bytes 0-9\/\d+$/, 'content-length': '10' } },
    },
    {
      name: 'an unsatisfiable Range is 416',
      area: 'oci',
      request: { path: (f) => `/v2/${REPO}/blobs/${f.configDigest}`, headers: { range: 'bytes=999999-' } },
      expect: { status: 416, check: ociCode('RANGE_INVALID') },
    },
    {
      name: 'a malformed digest is 400 DIGEST_INVALID',
      area: 'oci',
      request: { path: `/v2/${REPO}/blobs/sha256:xyz` },
      expect: { status: 400, check: ociCode('DIGEST_INVALID') },
    },
    {
      name: 'an unknown blob is 404 BLOB_UNKNOWN',
      area: 'oci',
      request: { path: `/v2/${REPO}/blobs/sha256:${'0'.repeat(64)}` },
      expect: { status: 404, check: ociCode('BLOB_UNKNOWN') },
    },
    {
      name: 'a write without the registry token is 401',
      area: 'oci',
      request: { method: 'PUT', path: `/v2/${REPO}/manifests/latest`, headers: { 'content-type': DOCKER }, body: '{}' },
      expect: { status: 401, headers: { 'www-authenticate': /^Basic/ }, check: ociCode('UNAUTHORIZED') },
    },
    {
      name: 'an upload without the registry token is 401',
      area: 'oci',
      request: { method: 'POST', path: `/v2/${REPO}/blobs/uploads/` },
      expect: { status: 401 },
    },
    {
      name: 'a write with the registry token is 405',
      area: 'oci',
      when: (o) => Boolean(o.registryToken),
      request: {
        method: 'DELETE',
        path: `/v2/${REPO}/manifests/latest`,
        headers: (_f, o) => ({ authorization: `Basic ${btoa(`user:${o.registryToken}`)}` }),
      },
      expect: { status: 405, headers: { allow: 'GET, HEAD' }, check: ociCode('UNSUPPORTED') },
    },
  ];
}

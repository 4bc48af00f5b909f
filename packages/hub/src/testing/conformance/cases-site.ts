import type { ConformanceCase } from './types.js';

const CORS = { 'access-control-allow-origin': '*' };
const FIVE_MIN = 'public, max-age=300';
const LINK = /rel="alternate".*rel="describedby".*rel="service-desc"/;
const noCreated = (j: any) => ({
  ...j,
  created_at_millis: '(host)',
  items: j.items?.map((i: any) => ({ ...i, created_at_millis: '(host)' })),
});

/** Discovery documents, section routes and the site pages. */
export function siteCases(): ConformanceCase[] {
  const section = (name: string): ConformanceCase[] => [
    {
      name: `GET /${name} is the section brief`,
      area: 'discovery',
      request: { path: `/${name}` },
      expect: { status: 200, headers: { ...CORS, 'content-type': /^text\/markdown/, vary: 'Accept', link: LINK } },
    },
    {
      name: `GET /${name}/ with Accept: application/json is the SectionDescriptor`,
      area: 'discovery',
      request: { path: `/${name}/`, headers: { accept: 'application/json' } },
      expect: {
        status: 200,
        headers: { vary: 'Accept' },
        check: (r) =>
          r.json?.format === 'svc.section.descriptor/v1' && r.json.section === name ? undefined : 'not the section descriptor',
      },
    },
  ];
  return [
    {
      name: "GET /{owner}/{name} (the public host's address) redirects to the model page",
      area: 'site',
      request: { path: '/demo/tiny-llama-2-GGUF', headers: { accept: 'text/html' } },
      expect: { status: 302, headers: { location: '/models/demo/tiny-llama-2-GGUF' } },
    },
    {
      name: 'GET /{owner}/{name}/blob/main/{path} redirects to the file',
      area: 'site',
      request: { path: '/demo/tiny-llama-2-GGUF/blob/main/llama-2-tiny-random-F16.gguf' },
      expect: { status: 302, headers: { location: '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf' } },
    },
    {
      name: 'GET /openapi.json is the machine description',
      area: 'discovery',
      request: { path: '/openapi.json' },
      expect: {
        status: 200,
        headers: { ...CORS, 'cache-control': FIVE_MIN },
        check: (r) => (r.json?.openapi === '3.1.0' && r.json.info?.version === '1.0.0' ? undefined : 'not OpenAPI 3.1 v1.0.0'),
      },
    },
    {
      name: 'GET /.well-known/openapi.json is the same document',
      area: 'discovery',
      request: { path: '/.well-known/openapi.json' },
      expect: { status: 200, check: (r) => (r.json?.openapi === '3.1.0' ? undefined : 'not OpenAPI') },
    },
    {
      name: 'GET /.well-known/agent-card.json is the AgentCard',
      area: 'discovery',
      request: { path: '/.well-known/agent-card.json' },
      expect: { status: 200, check: (r) => (r.json?.name && Array.isArray(r.json.skills) ? undefined : 'not an AgentCard') },
    },
    {
      name: 'GET /llms.txt',
      area: 'discovery',
      request: { path: '/llms.txt' },
      expect: { status: 200, headers: { 'content-type': /^text\/plain/, 'cache-control': FIVE_MIN } },
    },
    {
      name: 'GET /robots.txt is cached 5 min',
      area: 'discovery',
      request: { path: '/robots.txt' },
      expect: { status: 200, headers: { 'cache-control': FIVE_MIN }, text: /User-agent: \*/ },
    },
    {
      name: 'GET /favicon.ico',
      area: 'discovery',
      request: { path: '/favicon.ico' },
      expect: { status: 200, headers: { 'content-type': 'image/x-icon' } },
    },
    {
      name: 'GET /health is the health page',
      area: 'site',
      request: { path: '/health' },
      expect: { status: 200, headers: { 'content-type': /^text\/html/, 'cache-control': 'no-store' } },
    },
    ...['models', 'registry', 'spaces', 'buckets', 'docs'].flatMap(section),
    {
      name: 'GET /models/ with Accept: text/html is the browse page',
      area: 'site',
      request: { path: '/models/', headers: { accept: 'text/html' } },
      expect: { status: 200, headers: { 'content-type': /^text\/html/, vary: 'Accept' } },
    },
    {
      name: 'GET /models/{owner} is the owner page',
      area: 'site',
      request: { path: '/models/demo' },
      expect: { status: 200, headers: { 'content-type': /^text\/html/ } },
    },
    {
      name: 'GET /models/{owner}/{name} is the model page',
      area: 'site',
      request: { path: '/models/demo/tiny-llama-2-GGUF' },
      expect: { status: 200, headers: { 'content-type': /^text\/html/ } },
    },
    {
      name: 'GET /docs/sources.md',
      area: 'discovery',
      request: { path: '/docs/sources.md' },
      expect: { status: 200, headers: { 'content-type': /^text\/markdown/ } },
    },
    {
      name: 'GET /docs/verification.md',
      area: 'discovery',
      request: { path: '/docs/verification.md' },
      expect: { status: 200, headers: { 'content-type': /^text\/markdown/ } },
    },
    { name: 'GET /docs/{unknown page} is 404', area: 'discovery', request: { path: '/docs/no-such-page.md' }, expect: { status: 404 } },
    {
      name: 'GET /api/hub/archive is the Archive',
      area: 'discovery',
      request: { path: '/api/hub/archive' },
      expect: {
        status: 200,
        check: (r, f) =>
          r.json?.format === 'svc.model-hub.archive/v1' && r.json.days?.[0]?.index === f.catalog
            ? undefined
            : 'not the archive of the demo day',
      },
      // Each host built its demo index itself: `archived` is when.
      hostSpecific: (j) => ({ ...j, days: j.days?.map((d: any) => ({ ...d, archived: '(build)' })) }),
    },
    {
      name: 'GET /api/hub/pins is the Pins document',
      area: 'discovery',
      request: { path: '/api/hub/pins' },
      expect: { status: 200, check: (r) => (r.json?.format === 'svc.model-hub.pins/v1' ? undefined : 'not Pins') },
    },
    {
      name: 'GET /v2 (no slash) is the API check',
      area: 'oci',
      request: { path: '/v2' },
      expect: { status: 200, headers: { 'docker-distribution-api-version': 'registry/2.0' }, json: {} },
    },
    // ---- publishing (publisher token) ----
    {
      name: 'GET /api/v1/objects without a publisher token is 401',
      area: 'objects',
      request: { path: '/api/v1/objects' },
      expect: {
        status: 401,
        headers: { 'www-authenticate': /^Bearer/ },
        check: (r) => (r.json?.code === 'UNAUTHORIZED' ? undefined : 'wrong code'),
      },
    },
    {
      name: 'POST /api/v1/objects without a publisher token is 401',
      area: 'objects',
      request: { method: 'POST', path: '/api/v1/objects', headers: { 'content-type': 'application/json' }, body: '{}' },
      expect: { status: 401 },
    },
    {
      name: 'POST /api/v1/objects with a publisher token stores the object',
      area: 'objects',
      when: (o) => Boolean(o.publisherToken),
      request: {
        method: 'POST',
        path: '/api/v1/objects',
        headers: (_f, o) => ({
          authorization: `Bearer ${o.publisherToken}`,
          'content-type': 'application/json',
          'x-object-kind': 'conformance.test',
        }),
        body: '{"conformance":"SYNTHETIC object published by the conformance suite"}',
      },
      expect: {
        status: 201,
        check: (r) => (r.json?.kind === 'conformance.test' && /^blake3:/.test(r.json.id) ? undefined : 'not ObjectMetadata'),
      },
      hostSpecific: noCreated,
    },
    {
      name: 'GET /api/v1/objects with a publisher token lists objects',
      area: 'objects',
      when: (o) => Boolean(o.publisherToken),
      request: { path: '/api/v1/objects?limit=2', headers: (_f, o) => ({ authorization: `Bearer ${o.publisherToken}` }) },
      expect: {
        status: 200,
        headers: { link: /^<\{hub\}\/api\/v1\/objects\?.*>; rel="next"$/ },
        check: (r) => (r.json?.items?.length === 2 ? undefined : 'expected 2 items'),
      },
      hostSpecific: noCreated,
    },
  ];
}

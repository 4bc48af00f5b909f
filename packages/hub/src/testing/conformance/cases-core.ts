import { addressOf } from '@hub/core-index';
import type { ConformanceCase } from './types.js';

const CORS = { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };
const JSON_TYPE = 'application/json; charset=utf-8';
const ZERO = `blake3:${'0'.repeat(64)}`;

/** Discovery documents, the shared rules (405, 404, 400, CORS, HEAD, credentials) and the object dialect. */
export function coreCases(): ConformanceCase[] {
  return [
    // ---- discovery ----
    {
      name: 'GET / with Accept: application/json is the Descriptor',
      area: 'discovery',
      request: { path: '/', headers: { accept: 'application/json' } },
      expect: {
        status: 200,
        headers: { ...CORS, 'content-type': JSON_TYPE, vary: 'Accept', 'cache-control': 'public, max-age=60', etag: true },
        check: (r, f) =>
          r.json?.format === 'svc.model-hub.descriptor/v1' && r.json.catalog === f.catalog
            ? undefined
            : 'not the descriptor of the demo catalog',
      },
    },
    {
      name: 'GET / without Accept is the agent brief (Markdown)',
      area: 'discovery',
      request: { path: '/' },
      expect: { status: 200, headers: { ...CORS, 'content-type': /^text\/markdown/, vary: 'Accept' } },
    },
    {
      name: 'GET / with Accept: text/html is the website',
      area: 'discovery',
      request: { path: '/', headers: { accept: 'text/html,application/xhtml+xml' } },
      expect: { status: 200, headers: { ...CORS, 'content-type': /^text\/html/ } },
    },
    {
      name: 'HEAD / announces the length of GET / and sends no body',
      area: 'rules',
      request: { method: 'HEAD', path: '/', headers: { accept: 'application/json' } },
      expect: { status: 200, headers: { ...CORS, 'content-length': /^\d+$/, 'content-type': JSON_TYPE }, text: '' },
    },
    {
      name: 'POST / is 405 ReadOnly',
      area: 'rules',
      request: { method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: '{}' },
      expect: {
        status: 405,
        headers: { 'x-error-code': 'ReadOnly', allow: true, 'cache-control': 'no-store' },
        check: (r) => (typeof r.json?.error === 'string' ? undefined : 'no {error} body'),
      },
    },
    {
      name: 'DELETE / is 405 ReadOnly',
      area: 'rules',
      request: { method: 'DELETE', path: '/' },
      expect: { status: 405, headers: { 'x-error-code': 'ReadOnly' } },
    },
    {
      name: 'GET /.well-known/model-hub.json is the Descriptor',
      area: 'discovery',
      request: { path: '/.well-known/model-hub.json' },
      expect: {
        status: 200,
        headers: { ...CORS, 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=60' },
        check: (r, f) => (r.json?.catalog === f.catalog ? undefined : 'wrong catalog'),
      },
    },
    {
      name: 'GET /agent.md is the brief, cached 5 min',
      area: 'discovery',
      request: { path: '/agent.md' },
      expect: { status: 200, headers: { ...CORS, 'content-type': /^text\/markdown/, 'cache-control': 'public, max-age=300' } },
    },
    {
      name: 'GET /api/hub/health is HubHealth, not cached',
      area: 'discovery',
      request: { path: '/api/hub/health' },
      expect: {
        status: 200,
        headers: { ...CORS, 'cache-control': 'no-store' },
        check: (r) => (r.json?.sources && Array.isArray(r.json.order) ? undefined : 'not HubHealth'),
      },
    },
    {
      name: 'an unknown path is 404 text/plain',
      area: 'rules',
      request: { path: '/no/such/page/here' },
      expect: {
        status: 404,
        headers: { ...CORS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        text: /^Not found: /,
      },
    },
    {
      name: 'an unknown path under /-/ (beside the host routes) is the same 404 text/plain',
      area: 'rules',
      request: { path: '/-/no/such/route' },
      expect: {
        status: 404,
        headers: { ...CORS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        text: /^Not found: \/-\/no\/such\/route\./,
      },
    },
    {
      name: 'bad percent-encoding is 400 in the route group shape',
      area: 'rules',
      request: { path: '/api/models/demo/%E0%A4%A' },
      expect: {
        status: 400,
        headers: { 'x-error-code': 'BadRequest' },
        check: (r) => (typeof r.json?.error === 'string' ? undefined : 'no {error} body'),
      },
    },
    {
      name: 'CORS preflight on a read route allows every origin',
      area: 'rules',
      request: {
        method: 'OPTIONS',
        path: '/api/models',
        headers: { origin: 'https://example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' },
      },
      expect: {
        status: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-headers': 'range',
          'access-control-max-age': '86400',
          // a read route advertises only what it answers
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        },
        text: '',
      },
    },
    {
      name: 'a read path with a trailing slash redirects (308) to the route without it, query kept',
      area: 'rules',
      request: { path: '/api/models/?limit=1' },
      expect: { status: 308, headers: { location: '/api/models?limit=1', 'access-control-allow-origin': '*' } },
    },
    {
      name: 'CORS on a read answer exposes the hub headers',
      area: 'rules',
      request: { path: '/api/models?limit=1', headers: { origin: 'https://example.org' } },
      expect: { status: 200, headers: { 'access-control-allow-origin': '*', 'access-control-expose-headers': /x-repo-commit/ } },
    },
    // ---- objects ----
    {
      name: 'GET /api/v1/objects/{catalog} is the catalog bytes, cached forever',
      area: 'objects',
      request: { path: (f) => `/api/v1/objects/${f.catalog}` },
      expect: {
        status: 200,
        headers: { ...CORS, 'cache-control': 'public, max-age=31536000, immutable', 'x-object-kind': 'model-hub.catalog', etag: true },
        check: (r, f) => (addressOf(r.bytes) === f.catalog ? undefined : 'the bytes do not hash to the address'),
      },
    },
    {
      name: 'HEAD /api/v1/objects/{catalog} announces its length',
      area: 'objects',
      request: { method: 'HEAD', path: (f) => `/api/v1/objects/${f.catalog}` },
      expect: { status: 200, headers: { 'content-length': /^\d+$/ } },
    },
    {
      name: 'If-None-Match on an object is 304',
      area: 'rules',
      request: { path: (f) => `/api/v1/objects/${f.catalog}`, headers: (f) => ({ 'if-none-match': `"${f.catalog}"` }) },
      expect: { status: 304, headers: { 'content-length': null }, text: '' },
    },
    {
      name: 'GET /api/v1/objects/{catalog}/meta is ObjectMetadata',
      area: 'objects',
      request: { path: (f) => `/api/v1/objects/${f.catalog}/meta` },
      expect: {
        status: 200,
        check: (r, f) => (r.json?.id === f.catalog && r.json.kind === 'model-hub.catalog' ? undefined : 'wrong metadata'),
      },
      // When the object was stored differs by host.
      hostSpecific: (j) => ({ ...j, created_at_millis: '(host)' }),
    },
    {
      name: 'an absent object is 404 LIVE_NOT_FOUND',
      area: 'objects',
      request: { path: `/api/v1/objects/${ZERO}` },
      expect: {
        status: 404,
        headers: { 'cache-control': 'no-store' },
        check: (r) => (r.json?.code === 'LIVE_NOT_FOUND' ? undefined : 'wrong code'),
      },
    },
    {
      name: 'a malformed object address is 400 INVALID_ADDRESS',
      area: 'objects',
      request: { path: '/api/v1/objects/sha256:abc' },
      expect: { status: 400, check: (r) => (r.json?.code === 'INVALID_ADDRESS' ? undefined : 'wrong code') },
    },
    {
      name: 'GET /api/v1/capabilities names the role',
      area: 'objects',
      request: { path: '/api/v1/capabilities' },
      expect: {
        status: 200,
        headers: { 'cache-control': 'public, max-age=300' },
        check: (r, _f, o) =>
          r.json?.role === o.role && r.json.protocol_version === 1 ? undefined : `role ${r.json?.role}, expected ${o.role}`,
      },
      hostSpecific: (j) => ({ ...j, role: '(host)', server_id: '(host)' }),
    },
    {
      name: 'GET /api/v1/health is HealthResponse',
      area: 'objects',
      request: { path: '/api/v1/health' },
      expect: {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        check: (r, _f, o) => (r.json?.status === 'ok' && r.json.role === o.role ? undefined : 'wrong health'),
      },
      hostSpecific: (j) => ({ ...j, role: '(host)' }),
    },
    {
      name: 'an unknown object route is 404 in the objects shape',
      area: 'objects',
      request: { path: '/api/v1/nothing' },
      expect: { status: 404, check: (r) => (r.json?.code === 'NOT_FOUND' ? undefined : 'wrong shape') },
    },
  ];
}

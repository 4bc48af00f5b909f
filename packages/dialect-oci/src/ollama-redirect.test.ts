import type { BuildModelInput, SourceConfig } from '@hub/core-index';
import { createHub, type Hub } from '@hub/core-index';
import { createTestHub, request, type TestHub } from '@hub/core-index/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { DOCKER_MANIFEST } from './media-types.js';
import { ociRoutes } from './routes.js';

// ---- SYNTHETIC fixtures: one GGUF file held by an http LAN mirror, an https LAN mirror and a public https CDN.
const MODEL: BuildModelInput = {
  id: 'synthetic-org/redirect-GGUF',
  revision: 'a'.repeat(40),
  license: null,
  files: [{ path: 'r-Q4_K_M.gguf', size: 1234, sha256: 'b'.repeat(64) }],
  sources: [
    { source: 'lan-http', type: 'http' },
    { source: 'lan-https', type: 'http' },
    { source: 'cdn', type: 'http' },
  ],
};
const SOURCES: SourceConfig[] = [
  { name: 'lan-http', display: 'LAN (http)', token: 'lh', kind: 'http', url: 'http://192.168.1.5:8080/{id}/{path}' },
  { name: 'lan-https', display: 'LAN (https)', token: 'ls', kind: 'http', url: 'https://mirror.lan/{id}/{path}' },
  { name: 'cdn', display: 'CDN', token: 'c', kind: 'http', url: 'https://cdn.example.org/{id}/{path}' },
];
// Ollama 0.34's blob request (server/images.go downloadBlob): GET with its User-Agent, no Accept of note.
const OLLAMA = { 'user-agent': 'ollama/0.34.2 (amd64 linux) Go/go1.24.0', accept: DOCKER_MANIFEST };
const CONTAINERD = { 'user-agent': 'containerd/1.6.20' };
const BLOB = `/v2/synthetic-org/redirect-gguf/blobs/sha256:${'b'.repeat(64)}`;

let t: TestHub;
const hubAt = (baseUrl?: string): Hub => {
  const deps = { ...t.deps, settings: { ...t.deps.settings, ...(baseUrl ? { baseUrl } : {}) } };
  return createHub(deps, ociRoutes());
};
const down = (name: string) => t.health.record(name, { ok: false, reason: 'test: down', at: 1 });

beforeEach(async () => {
  t = await createTestHub({ models: [MODEL], sources: SOURCES });
});

describe('redirect rules for Ollama 0.34.2+', () => {
  it('an https hub never sends Ollama to an http source, and prefers a public host over a LAN one', async () => {
    const hub = hubAt('https://hub.example.org');
    const res = await request(hub, BLOB, { headers: OLLAMA });
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe('https://cdn.example.org/synthetic-org/redirect-GGUF/r-Q4_K_M.gguf');
    // Other clients keep the configured order.
    const other = await request(hub, BLOB, { headers: CONTAINERD });
    expect(other.headers.location).toMatch(/^http:\/\/192\.168\.1\.5:8080\//);
  });

  it('a LAN https source is used for Ollama only when no other live source holds the file', async () => {
    down('cdn');
    const res = await request(hubAt('https://hub.example.org'), BLOB, { headers: OLLAMA });
    expect(res.status).toBe(307);
    expect(res.headers.location).toMatch(/^https:\/\/mirror\.lan\//);
  });

  it('with only the http source live, an https hub answers 503 to Ollama rather than redirect to http', async () => {
    down('cdn');
    down('lan-https');
    const res = await request(hubAt('https://hub.example.org'), BLOB, { headers: OLLAMA });
    expect(res.status).toBe(503);
    expect(res.headers.location).toBeUndefined();
  });

  it('an http hub on the LAN (Ollama --insecure) may send Ollama to the http LAN mirror', async () => {
    const res = await request(hubAt('http://192.168.1.2:8080'), BLOB, { headers: OLLAMA });
    expect(res.status).toBe(307);
    expect(res.headers.location).toMatch(/^http:\/\/192\.168\.1\.5:8080\//);
  });
});

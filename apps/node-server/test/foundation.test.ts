import net from 'node:net';
import { addressOf, blake3Hex, DescriptorSchema } from '@hub/core-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(async () => {
  await hub?.close();
});

/** A raw HTTP/1.1 exchange, for requests fetch refuses to send. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let out = '';
    socket.on('data', (d) => {
      out += d.toString('latin1');
    });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('the hub on its embedded default', () => {
  it('serves a Descriptor on / for Accept: application/json whose catalog hashes back to its address', async () => {
    const res = await fetch(`${hub.url}/`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('vary')).toBe('Accept');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const descriptor = DescriptorSchema.parse(await res.json());
    expect(descriptor.format).toBe('svc.model-hub.descriptor/v1');
    const obj = await fetch(`${hub.url}${descriptor.fetch.replace('{id}', descriptor.catalog)}`);
    expect(obj.status).toBe(200);
    const bytes = new Uint8Array(await obj.arrayBuffer());
    expect(`blake3:${blake3Hex(bytes)}`).toBe(descriptor.catalog);
    expect(obj.headers.get('x-object-kind')).toBe('model-hub.catalog');
    expect(obj.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const catalog = JSON.parse(new TextDecoder().decode(bytes));
    expect(Object.keys(catalog.objects).sort()).toEqual(['demo/tiny-bert-synthetic', 'demo/tiny-llama-2-GGUF']);
  });

  it('serves the same descriptor bytes at /.well-known/model-hub.json', async () => {
    const a = await (await fetch(`${hub.url}/`, { headers: { accept: 'application/json' } })).text();
    const b = await (await fetch(`${hub.url}/.well-known/model-hub.json`)).text();
    expect(b).toBe(a);
  });

  it('re-hashes every object of the bundled index to its address', async () => {
    const descriptor = await (await fetch(`${hub.url}/.well-known/model-hub.json`)).json();
    const catalog = await (await fetch(`${hub.url}/api/v1/objects/${descriptor.catalog}`)).json();
    const addresses = Object.values(catalog.objects as Record<string, { model: string; sources: string[] }>).flatMap((e) => [
      e.model,
      ...e.sources,
    ]);
    expect(addresses.length).toBeGreaterThanOrEqual(4);
    for (const address of addresses) {
      const bytes = new Uint8Array(await (await fetch(`${hub.url}/api/v1/objects/${address}`)).arrayBuffer());
      expect(addressOf(bytes)).toBe(address);
    }
    const model = await (await fetch(`${hub.url}/api/v1/objects/${catalog.objects['demo/tiny-llama-2-GGUF'].model}`)).json();
    const gguf = model.files.find((f: { path: string }) => f.path.endsWith('.gguf'));
    // The real tiny GGUF (node-toolkit's demo tree; fixtures/model-host/README.md says where it came from), by its published SHA-256.
    expect(gguf).toEqual({
      path: 'llama-2-tiny-random-F16.gguf',
      size: 1750560,
      sha256: '81f226c62d28ed4a1a9b9fa080fcd9f0cc40e0f9d5680036583ff98fbcd035cb',
    });
    expect(model.facts.gguf[0]).toMatchObject({ architecture: 'llama', context_length: 4096, quantization: 'F16' });
  });

  it('negotiates / by Accept: html for browsers, the Markdown brief otherwise', async () => {
    const html = await fetch(`${hub.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('<html lang="en">');
    const brief = await fetch(`${hub.url}/`, { headers: { accept: '*/*' } });
    expect(brief.headers.get('content-type')).toMatch(/^text\/markdown/);
    const text = await brief.text();
    const agent = await (await fetch(`${hub.url}/agent.md`)).text();
    expect(text).toBe(agent);
    expect(text.trim().split('\n').pop()).toMatch(/^canary: /);
  });

  it('answers HEAD / like GET without a body, and 405 ReadOnly to other methods', async () => {
    const head = await fetch(`${hub.url}/`, { method: 'HEAD', headers: { accept: 'application/json' } });
    expect(head.status).toBe(200);
    const get = await fetch(`${hub.url}/`, { headers: { accept: 'application/json' } });
    expect(head.headers.get('content-length')).toBe(String((await get.arrayBuffer()).byteLength));
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${hub.url}/`, { method, body: method === 'DELETE' ? undefined : 'x' });
      expect(res.status).toBe(405);
      expect(res.headers.get('x-error-code')).toBe('ReadOnly');
      const body = await res.json();
      expect(typeof body.error).toBe('string');
      expect(res.headers.get('allow')).toContain('GET');
    }
  });

  it('serves source health', async () => {
    const res = await fetch(`${hub.url}/api/hub/health`);
    expect(res.status).toBe(200);
    const health = await res.json();
    expect(health.order[0]).toBe('demo-mirror');
    expect(health.sources['demo-mirror']).toEqual({ ok: true, checked: null });
    expect(health.sources['huggingface.co']).toBeDefined();
  });

  it('drops Authorization on read routes: same answer as anonymous, never 401, never logged', async () => {
    const anon = await fetch(`${hub.url}/api/hub/health`);
    const secret = 'Bearer super-secret-token-123';
    const withAuth = await fetch(`${hub.url}/api/hub/health`, { headers: { authorization: secret, cookie: 'session=also-secret' } });
    expect(withAuth.status).toBe(anon.status);
    expect(await withAuth.text()).toBe(await anon.text());
    expect(hub.logs.join('')).not.toContain('super-secret-token-123');
    expect(hub.logs.join('')).not.toContain('also-secret');
  });

  it('answers unknown paths 404 text/plain, and object errors in {code, message}', async () => {
    const res = await fetch(`${hub.url}/no/such/thing/here/at/all`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const missing = await fetch(`${hub.url}/api/v1/objects/blake3:${'0'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'LIVE_NOT_FOUND' });
    const bad = await fetch(`${hub.url}/api/v1/objects/not-an-address`);
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.code).toBe('INVALID_ADDRESS');
    expect(typeof body.message).toBe('string');
  });

  it('serves object metadata, the capability manifest and the object-server health', async () => {
    const descriptor = await (await fetch(`${hub.url}/.well-known/model-hub.json`)).json();
    const meta = await (await fetch(`${hub.url}/api/v1/objects/${descriptor.catalog}/meta`)).json();
    expect(meta).toMatchObject({ id: descriptor.catalog, kind: 'model-hub.catalog', media_type: 'application/json' });
    expect(meta.size).toBeGreaterThan(100);
    const caps = await (await fetch(`${hub.url}/api/v1/capabilities`)).json();
    expect(caps).toMatchObject({ protocol_version: 1, server_version: '1.0.0', maximum_message_bytes: 33554432, role: 'server' });
    expect(caps.operations.map((o: { id: string }) => o.id)).toContain('objects.get');
    const health = await (await fetch(`${hub.url}/api/v1/health`)).json();
    expect(health).toMatchObject({ status: 'ok', version: '1.0.0', role: 'server' });
    expect(health.modules_ready).toBeGreaterThan(0);
  });

  it('answers If-None-Match with 304', async () => {
    const first = await fetch(`${hub.url}/.well-known/model-hub.json`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${hub.url}/.well-known/model-hub.json`, { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
  });

  it('never answers 500 to malformed input', async () => {
    const badEncoding = await fetch(`${hub.url}/api/v1/objects/%E0%A4%A`);
    expect(badEncoding.status).toBe(400);
    const badRoot = await fetch(`${hub.url}/%`);
    expect(badRoot.status).toBeLessThan(500);
    const huge = await rawRequest(hub.running.port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431/);
    const odd = await rawRequest(hub.running.port, 'BREW / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(odd).toMatch(/^HTTP\/1\.1 (400|405|501)/);
    const propfind = await rawRequest(hub.running.port, 'PROPFIND / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(propfind).toMatch(/^HTTP\/1\.1 405/);
    const garbage = await rawRequest(hub.running.port, 'GET /\x01\x02 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 4\d\d/);
  });

  it('answers the host routes /-/live and /-/ready (GET and HEAD), 405 for other methods, and other /-/ paths as every unknown path', async () => {
    const live = await fetch(`${hub.url}/-/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await live.json()).toEqual({ ok: true });
    const ready = await (await fetch(`${hub.url}/-/ready?probe=1`)).json();
    expect(ready).toEqual({ ok: true, catalog: hub.running.deps.index().catalogAddress, models: hub.running.deps.index().totals.models });
    const head = await fetch(`${hub.url}/-/ready`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${hub.url}/-/live`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await post.json()).error).toMatch(/GET and HEAD/);
    expect([post.headers.get('access-control-allow-origin'), post.headers.get('x-content-type-options')]).toEqual(['*', 'nosniff']);
    expect([live.headers.get('access-control-allow-origin'), live.headers.get('x-content-type-options')]).toEqual(['*', 'nosniff']);
    // Any other path under /-/ is an unknown path like any other (issue 37): the hub's own 404, CORS and nosniff.
    const unknown = await fetch(`${hub.url}/no/such/route`);
    const unknownHead = [...unknown.headers].filter(([k]) => !['date', 'content-length', 'connection', 'keep-alive'].includes(k));
    for (const target of ['/-/metrics-or-anything', '/-/../api/models', '/-/%2e%2e/api/models', '/-/a/b/c']) {
      const raw = await rawRequest(hub.running.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      expect(head.split('\r\n')[0], target).toBe('HTTP/1.1 404 Not Found');
      for (const [k, v] of unknownHead) expect(head.toLowerCase(), `${target} ${k}`).toContain(`\r\n${k}: ${v.toLowerCase()}`);
      expect(body, target).toMatch(/^(Not found: |-\/\S+ is not in today's index)/);
    }
    // kept alive: the body is framed by content-length, so a second request on the same connection is answered
    const raw = await rawRequest(
      hub.running.port,
      'GET /-/live HTTP/1.1\r\nHost: localhost\r\n\r\nGET /-/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(raw.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(raw).toMatch(/content-length: 11\r\n/i);
  });
});

describe('closing the hub', () => {
  it('lets background work started by requests finish before close() resolves (nothing written after it)', async () => {
    const own = await startTestHub();
    let finished = false;
    own.running.deps.defer(
      new Promise<void>((resolve) =>
        setTimeout(() => {
          finished = true;
          resolve();
        }, 300),
      ),
    );
    await own.running.close();
    expect(finished).toBe(true);
    await own.close();
  });
});

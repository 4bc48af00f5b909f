import { describe, expect, it } from 'vitest';
import { decideHost, forwardedOf, type HostPolicy, parseHost } from './host-policy.js';

/** The invalid `Host` values of issue 26 (and issue 19's), each rejected by the WHATWG URL host parser or a delimiter. */
const INVALID = [
  'xn--',
  'a b',
  '%00',
  'a@b',
  '[',
  '/',
  '?',
  '#',
  'a:65536',
  '[::1]:99999',
  ':',
  'a:b:c',
  'a"b<c>',
  'a/b',
  'a?b',
  'a#b',
  'a\\b',
  '',
  'a\tb',
  'bücher.de',
];

function headers(h: Record<string, string>): (name: string) => string | null {
  return (name) => h[name] ?? null;
}

function decide(policy: HostPolicy | undefined, h: Record<string, string>, method = 'GET', path = '/api/models') {
  return decideHost(policy, { method, path, protocol: 'http', header: headers(h) });
}

const LOOPBACK: HostPolicy = { listenHost: '127.0.0.1' };

describe('parseHost: a Host value alone, as the WHATWG URL parser reads it', () => {
  it('rejects every invalid value', () => {
    for (const v of INVALID) expect(parseHost(v), JSON.stringify(v)).toBeUndefined();
  });
  it('accepts names, addresses and ports, serialised as a URL would hold them', () => {
    expect(parseHost('EXAMPLE.org:8080')).toEqual({ host: 'example.org:8080', hostname: 'example.org', origin: 'http://example.org:8080' });
    expect(parseHost('localhost:80')?.origin).toBe('http://localhost');
    expect(parseHost('localhost:443', 'https')?.origin).toBe('https://localhost');
    expect(parseHost('[::1]:8080')?.hostname).toBe('[::1]');
    // an IPv4 address in another spelling is the address (so the rebinding rule sees what a resolver would)
    expect(parseHost('0x7f.1')?.hostname).toBe('127.0.0.1');
  });
  it('answers a value asked again (kept parses) exactly as the first time, per scheme, and a kept one cannot be changed', () => {
    const first = parseHost('Kept.example:80');
    expect(parseHost('Kept.example:80')).toEqual(first);
    expect(parseHost('Kept.example:80', 'https')?.origin).toBe('https://kept.example:80');
    expect(() => {
      (parseHost('Kept.example:80') as { origin: string }).origin = 'http://evil.example';
    }).toThrow(TypeError);
    expect(parseHost('Kept.example:80')?.origin).toBe('http://kept.example');
    for (const v of INVALID) expect(parseHost(v), JSON.stringify(v)).toBeUndefined();
  });
  it('stays right when a client sends a new Host on every request (the kept parses are bounded)', () => {
    for (let i = 0; i < 3000; i++) expect(parseHost(`h${i}.example:${1000 + i}`)?.host).toBe(`h${i}.example:${1000 + i}`);
    for (const v of INVALID) expect(parseHost(v), JSON.stringify(v)).toBeUndefined();
    expect(parseHost('h0.example:1000')?.origin).toBe('http://h0.example:1000');
  });
});

describe('decideHost: the one host policy (design 10.1)', () => {
  it('answers 400 for an invalid Host before anything else, whatever the policy', () => {
    for (const policy of [undefined, LOOPBACK, { listenHost: '0.0.0.0', trustProxy: true }]) {
      const d = decide(policy, { host: 'xn--' });
      expect(d.ok ? 0 : d.status).toBe(400);
    }
  });

  it('a loopback-bound hub answers loopback names, baseUrl host and allowedHosts; refuses others naming the settings', () => {
    const policy: HostPolicy = {
      listenHost: '127.0.0.1',
      baseUrl: 'https://models.example.org',
      allowedHosts: ['hub.lan', '.corp.example'],
    };
    for (const host of [
      'localhost:8080',
      '127.0.0.1:8080',
      '[::1]:8080',
      'a.localhost',
      'models.example.org',
      'hub.lan:9',
      'x.corp.example',
      'corp.example',
    ])
      expect(decide(policy, { host }).ok, host).toBe(true);
    for (const host of ['evil.example', 'hub.lan.evil.example', 'notcorp.example', '10.0.0.1']) {
      const d = decide(policy, { host });
      expect(d.ok, host).toBe(false);
      if (d.ok) continue;
      expect(d.status).toBe(403);
      expect(d.message).toMatch(/allowedHosts/);
      expect(d.message).toMatch(/baseUrl/);
      // the refusal never repeats what the client sent
      expect(d.message).not.toContain(host.split(':')[0]);
    }
  });

  it('decides a name asked again as the first time, also after a flood of other names (the decisions kept are bounded)', () => {
    const policy: HostPolicy = { listenHost: '127.0.0.1', allowedHosts: ['hub.lan'] };
    const twice = () => [decide(policy, { host: 'hub.lan' }).ok, decide(policy, { host: 'evil.example' }).ok];
    expect(twice()).toEqual([true, false]);
    for (let i = 0; i < 3000; i++) expect(decide(policy, { host: `n${i}.example` }).ok).toBe(false);
    expect(twice()).toEqual([true, false]);
    expect(decide({ listenHost: '0.0.0.0' }, { host: 'evil.example' }).ok).toBe(true);
  });

  it('refuses a foreign Origin (and the opaque null origin) on /mcp and state-changing methods, not on reads', () => {
    const host = { host: '127.0.0.1:8080' };
    expect(decide(LOOPBACK, { ...host, origin: 'https://evil.example' }, 'POST', '/mcp').ok).toBe(false);
    expect(decide(LOOPBACK, { ...host, origin: 'null' }, 'POST', '/mcp').ok).toBe(false);
    expect(decide(LOOPBACK, { ...host, origin: 'https://evil.example' }, 'PUT', '/api/v1/objects').ok).toBe(false);
    expect(decide(LOOPBACK, { ...host, origin: 'https://evil.example' }, 'GET', '/api/models').ok).toBe(true);
    expect(decide(LOOPBACK, { ...host, origin: 'http://localhost:5173' }, 'POST', '/mcp').ok).toBe(true);
  });

  it('a hub bound to another address answers any valid Host', () => {
    expect(decide({ listenHost: '0.0.0.0' }, { host: 'evil.example' }).ok).toBe(true);
  });

  it('builds the origin from baseUrl when set, else from the validated Host', () => {
    const withBase = decide({ listenHost: '0.0.0.0', baseUrl: 'https://models.example.org' }, { host: 'evil.example' });
    expect(withBase.ok && withBase.origin).toBe('https://models.example.org');
    const without = decide({ listenHost: '0.0.0.0' }, { host: 'Hub.Example:8080' });
    expect(without.ok && without.origin).toBe('http://hub.example:8080');
  });

  it('reads Forwarded / X-Forwarded-* only with trustProxy', () => {
    const h = { host: '127.0.0.1:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'models.example.org' };
    const trusted = decide({ listenHost: '0.0.0.0', trustProxy: true }, h);
    expect(trusted.ok && trusted.origin).toBe('https://models.example.org');
    const untrusted = decide({ listenHost: '0.0.0.0' }, h);
    expect(untrusted.ok && untrusted.origin).toBe('http://127.0.0.1:8080');
    const rfc = decide(
      { listenHost: '0.0.0.0', trustProxy: true },
      { host: '127.0.0.1', forwarded: 'for=10.0.0.1;proto=https;host="hub.example:8443", for=10.0.0.2' },
    );
    expect(rfc.ok && rfc.origin).toBe('https://hub.example:8443');
    // a proxy-forwarded host is checked like Host, and by the loopback rule
    const bad = decide({ listenHost: '0.0.0.0', trustProxy: true }, { host: '127.0.0.1', 'x-forwarded-host': 'a b' });
    expect(bad.ok ? 0 : bad.status).toBe(400);
    const proto = decide({ listenHost: '0.0.0.0', trustProxy: true }, { host: '127.0.0.1', 'x-forwarded-proto': 'gopher' });
    expect(proto.ok ? 0 : proto.status).toBe(400);
    const rebound = decide({ listenHost: '127.0.0.1', trustProxy: true }, { host: '127.0.0.1', 'x-forwarded-host': 'evil.example' });
    expect(rebound.ok ? 0 : rebound.status).toBe(403);
  });

  it('forwardedOf prefers Forwarded and takes the element nearest the client', () => {
    expect(
      forwardedOf(headers({ forwarded: 'proto=http;host=a.example, proto=https;host=b.example', 'x-forwarded-host': 'c.example' })),
    ).toEqual({
      proto: 'http',
      host: 'a.example',
    });
    expect(forwardedOf(headers({ 'x-forwarded-proto': 'HTTPS, http', 'x-forwarded-host': 'c.example, d.example' }))).toEqual({
      proto: 'https',
      host: 'c.example',
    });
  });
});

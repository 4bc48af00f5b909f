// The HTTP/1.1 GET of `hub get` (node:net, one reused read buffer) against raw loopback servers that send exactly
// the bytes a test chooses, split where it chooses: lengths, chunked bodies, interim answers, and broken peers.
import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Error, http1Get } from './http1.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A server that records the request head and answers with `parts`, one write each, `gapMs` apart. */
async function raw(parts: Array<string | Buffer>, opts: { gapMs?: number; end?: boolean } = {}) {
  const requests: string[] = [];
  const sockets: Socket[] = [];
  const s = createServer((sock) => {
    sockets.push(sock);
    let got = '';
    sock.on('data', async (d) => {
      got += d.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      requests.push(got);
      for (const p of parts) {
        if (sock.destroyed) return;
        sock.write(p);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.end !== false) sock.end();
    });
    sock.on('error', () => {});
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  return { url: new URL(`http://127.0.0.1:${port}/a/b.bin?x=1`), requests, sockets };
}

/** Reads a body the way the client does: each lent chunk is used (here copied) before the next is asked for. */
async function drain(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of body) out.push(Buffer.from(c));
  return Buffer.concat(out);
}

/** Every byte of `s` as its own write. */
const bytewise = (s: string | Buffer) => [...Buffer.from(s)].map((b) => Buffer.from([b]));
const signal = () => new AbortController().signal;

// SYNTHETIC body bytes
const BODY = Buffer.alloc(3 * 1024 * 1024 + 17);
for (let i = 0; i < BODY.length; i++) BODY[i] = (i * 7 + (i >> 12)) & 0xff;

describe('http1Get', () => {
  it('sends one GET with the path, query, host and the given headers; reads a content-length body larger than its buffer', async () => {
    const srv = await raw([`HTTP/1.1 200 OK\r\nContent-Length: ${BODY.length}\r\nX-Hub-Source: one\r\nX-Hub-Source: two\r\n\r\n`, BODY]);
    const a = await http1Get(srv.url, { range: 'bytes=0-' }, signal());
    expect(a.status).toBe(200);
    expect(a.headers.get('x-hub-source')).toBe('one, two');
    const got = await drain(a.body);
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(BODY).digest('hex'));
    const [req] = srv.requests;
    expect(req?.startsWith('GET /a/b.bin?x=1 HTTP/1.1\r\n')).toBe(true);
    expect(req).toContain(`host: ${srv.url.host}\r\n`);
    expect(req).toContain('range: bytes=0-\r\n');
  });

  it('reads a head and body that arrive one byte per write', async () => {
    const srv = await raw(bytewise('HTTP/1.1 206 Partial\r\ncontent-length: 5\r\n\r\nhello'), { gapMs: 1 });
    const a = await http1Get(srv.url, {}, signal());
    expect(a.status).toBe(206);
    expect((await drain(a.body)).toString()).toBe('hello');
  });

  it('decodes a chunked body with extensions and trailers, split anywhere', async () => {
    const wire =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nx-trailer: t\r\n\r\n';
    for (const parts of [[wire], bytewise(wire), [wire.slice(0, 50), wire.slice(50, 61), wire.slice(61)]]) {
      const srv = await raw(parts);
      const a = await http1Get(srv.url, {}, signal());
      expect((await drain(a.body)).toString()).toBe('hello 0123456789');
    }
  });

  it('skips an interim 100 answer and reads the final one', async () => {
    const srv = await raw(['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok']);
    const a = await http1Get(srv.url, {}, signal());
    expect(a.status).toBe(200);
    expect((await drain(a.body)).toString()).toBe('ok');
  });

  it('reads a body without length or chunks until the connection closes', async () => {
    const srv = await raw(['HTTP/1.0 200 OK\r\n\r\n', 'abc', 'def']);
    const a = await http1Get(srv.url, {}, signal());
    expect((await drain(a.body)).toString()).toBe('abcdef');
  });

  it('a connection closed before content-length bytes fails the body (a cut, never a short success)', async () => {
    const srv = await raw(['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n', 'only this']);
    const a = await http1Get(srv.url, {}, signal());
    await expect(drain(a.body)).rejects.toThrow(/closed before the end/);
  });

  it('a chunked body cut before its last chunk fails', async () => {
    const srv = await raw(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n']);
    const a = await http1Get(srv.url, {}, signal());
    await expect(drain(a.body)).rejects.toThrow(/closed before the end/);
  });

  it('refuses broken answers with an Http1Error: no HTTP status line, a huge head, bad lengths, a control character in a header, a bad chunk size', async () => {
    const cases: Array<[Array<string | Buffer>, RegExp]> = [
      [['SSH-2.0-OpenSSH\r\n\r\n'], /not an HTTP\/1.1 response/],
      [[`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70 * 1024)}\r\n\r\n`], /head is too large/],
      [['HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab'], /bad content-length/],
      [['HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n'], /bad content-length/],
      [['HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n'], /unsupported transfer-encoding/],
      [['HTTP/1.1 302 Found\r\nlocation: /x\r\nx-hub-source: a\x1b[2Jb\r\n\r\n'], /malformed response header/],
      [['HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n'], /malformed response header/],
      [['HTTP/1.1 200 OK\r\n folded: 1\r\n\r\n'], /malformed response header/],
    ];
    for (const [parts, message] of cases) {
      const srv = await raw(parts);
      const err = await http1Get(srv.url, {}, signal()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Http1Error);
      expect((err as Error).message).toMatch(message);
    }
    const srv = await raw(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n']);
    const a = await http1Get(srv.url, {}, signal());
    await expect(drain(a.body)).rejects.toThrow(Http1Error);
  });

  it('refuses a request header that would split the request', async () => {
    const srv = await raw(['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']);
    await expect(http1Get(srv.url, { range: 'bytes=0-\r\nx-evil: 1' }, signal())).rejects.toThrow(/invalid request header/);
    await expect(http1Get(srv.url, { 'bad name': 'x' }, signal())).rejects.toThrow(/invalid request header/);
    expect(srv.requests).toEqual([]);
  });

  it('an abort mid-body ends the body with the abort reason and closes the connection', async () => {
    const srv = await raw(['HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n', 'first'], { end: false });
    const ctrl = new AbortController();
    const a = await http1Get(srv.url, {}, ctrl.signal);
    const reason = new Error('stall');
    const reading = drain(a.body);
    setTimeout(() => ctrl.abort(reason), 30);
    await expect(reading).rejects.toBe(reason);
    await new Promise((r) => setTimeout(r, 20));
    expect(srv.sockets[0]?.destroyed || srv.sockets[0]?.readableEnded).toBe(true);
  });

  it('a refused connection rejects', async () => {
    const srv = await raw([]);
    const url = srv.url;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    await expect(http1Get(url, {}, signal())).rejects.toThrow();
  });
});

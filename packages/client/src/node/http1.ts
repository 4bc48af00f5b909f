/**
 * One HTTP/1.1 GET over node:net for `http:` URLs, reading the socket into one reused buffer (`onread`): no Buffer
 * allocated per read and no stream between the socket and the consumer. On this machine that reads 200 MiB from
 * nginx on loopback with a fifth of node:http's CPU, and the bytes are still in the CPU cache when they are hashed
 * and copied to the file writer (docs/benchmarks.md, `hub get`). A body chunk is lent, not given: it is valid until
 * the consumer asks for the next one (the socket reads again only then).
 */
import { connect, type Socket } from 'node:net';

/** The socket reads into a buffer of this size (one per connection). */
const READ_BUFFER_BYTES = 1 << 20;
/** A response head larger than this is refused. */
const HEAD_LIMIT = 64 << 10;
/** A chunk-size or trailer line longer than this is refused. */
const LINE_LIMIT = 4096;

export interface Http1Answer {
  status: number;
  headers: Map<string, string>;
  /** lent chunks: each valid until the next is asked for */
  body: AsyncIterable<Uint8Array>;
  /** stop reading and close the connection */
  cancel(): void;
}

/** Why an answer could not be read as HTTP/1.1 (a broken or hostile peer). */
export class Http1Error extends Error {}

type Body =
  | { kind: 'length'; left: number }
  | { kind: 'close' }
  | { kind: 'chunked'; state: 'size' | 'data' | 'data-end' | 'trailer'; left: number; line: string }
  | { kind: 'none' };

const CRLF_CRLF = Buffer.from('\r\n\r\n');
/** an HTTP token (a header name) */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A control character other than a tab (never in a header value). */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}

/** GET `url` (an `http:` URL) with `headers`; resolves when the response head has arrived. */
export function http1Get(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Http1Answer> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'http:') return reject(new Error(`http1Get: not an http: URL: ${url.protocol}`));
    const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, 'connection: close', 'accept-encoding: identity'];
    for (const [name, value] of Object.entries(headers)) {
      if (!TOKEN.test(name) || hasControl(value)) {
        return reject(new Error(`http1Get: invalid request header ${JSON.stringify(name)}`));
      }
      if (name.toLowerCase() !== 'accept-encoding' && name.toLowerCase() !== 'host' && name.toLowerCase() !== 'connection')
        lines.push(`${name}: ${value}`);
    }
    const request = `${lines.join('\r\n')}\r\n\r\n`;

    let head: Buffer | undefined = Buffer.alloc(0);
    let body: Body = { kind: 'none' };
    /** lent pieces of the buffer the socket last read into, not yet taken by the consumer */
    const pieces: Uint8Array[] = [];
    let done = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    let paused = false;
    let answered = false;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const fail = (e: Error) => {
      if (done || failure) return;
      failure = e;
      socket.destroy();
      if (!answered) reject(e);
      notify();
    };
    const finish = () => {
      if (done || failure) return;
      done = true;
      socket.destroy();
      notify();
    };

    /** Body bytes of this read: lent pieces for the consumer. */
    const feedBody = (d: Uint8Array) => {
      if (body.kind === 'close') {
        if (d.byteLength > 0) pieces.push(d);
      } else if (body.kind === 'length') {
        const take = Math.min(body.left, d.byteLength);
        if (take > 0) pieces.push(d.subarray(0, take));
        body.left -= take;
        if (body.left === 0) finish();
      } else if (body.kind === 'chunked') feedChunked(body, d);
    };
    const feedChunked = (c: Extract<Body, { kind: 'chunked' }>, d: Uint8Array) => {
      let i = 0;
      while (i < d.byteLength && !done && !failure) {
        if (c.state === 'data') {
          const take = Math.min(c.left, d.byteLength - i);
          pieces.push(d.subarray(i, i + take));
          c.left -= take;
          i += take;
          if (c.left === 0) c.state = 'data-end';
          continue;
        }
        // a line: the chunk size, the CRLF after a chunk's data, or a trailer line
        const nl = d.indexOf(10, i);
        const end = nl < 0 ? d.byteLength : nl;
        c.line += Buffer.from(d.buffer, d.byteOffset + i, end - i).toString('latin1');
        if (c.line.length > LINE_LIMIT) return fail(new Http1Error('a chunked body line is too long'));
        if (nl < 0) return;
        i = nl + 1;
        const line = c.line.endsWith('\r') ? c.line.slice(0, -1) : c.line;
        c.line = '';
        if (c.state === 'data-end') {
          if (line !== '') return fail(new Http1Error('no CRLF after a chunk'));
          c.state = 'size';
        } else if (c.state === 'size') {
          const hex = (line.split(';')[0] ?? '').trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) return fail(new Http1Error('a bad chunk size'));
          c.left = Number.parseInt(hex, 16);
          c.state = c.left === 0 ? 'trailer' : 'data';
        } else if (line === '') return finish();
      }
    };

    /** The response head (one or more, after 1xx answers); returns the bytes after it. */
    const feedHead = (d: Uint8Array): Uint8Array | undefined => {
      head = Buffer.concat([head ?? Buffer.alloc(0), d]);
      const at = head.indexOf(CRLF_CRLF);
      if (at < 0) {
        if (head.byteLength > HEAD_LIMIT) fail(new Http1Error('the response head is too large'));
        return undefined;
      }
      if (at > HEAD_LIMIT) return void fail(new Http1Error('the response head is too large'));
      const rest = head.subarray(at + 4);
      const [statusLine = '', ...fieldLines] = head.subarray(0, at).toString('latin1').split('\r\n');
      const m = /^HTTP\/1\.[01] ([1-5]\d\d)(?: .*)?$/.exec(statusLine);
      if (!m) return void fail(new Http1Error('not an HTTP/1.1 response'));
      const status = Number(m[1]);
      if (status >= 100 && status < 200) {
        // an interim answer (100, 103): the real one follows
        head = Buffer.alloc(0);
        return rest.byteLength > 0 ? feedHead(rest) : undefined;
      }
      const fields = new Map<string, string>();
      for (const line of fieldLines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).trim();
        // a token for the name, no control character in the value (it may reach a terminal: `X-Hub-Source`)
        if (colon <= 0 || !TOKEN.test(name) || hasControl(value)) return void fail(new Http1Error('a malformed response header'));
        const had = fields.get(name);
        fields.set(name, had === undefined ? value : `${had}, ${value}`);
      }
      const te = fields.get('transfer-encoding');
      const cl = fields.get('content-length');
      if (status === 204 || status === 304) body = { kind: 'none' };
      else if (te !== undefined) {
        if (!/(^|,)\s*chunked\s*$/i.test(te)) return void fail(new Http1Error(`unsupported transfer-encoding: ${te}`));
        body = { kind: 'chunked', state: 'size', left: 0, line: '' };
      } else if (cl !== undefined) {
        // repeated equal values (`10, 10`) are one length; different ones are refused
        const values = new Set(cl.split(',').map((v) => v.trim()));
        const only = [...values][0] ?? '';
        if (values.size !== 1 || !/^\d{1,15}$/.test(only)) return void fail(new Http1Error('a bad content-length'));
        body = { kind: 'length', left: Number(only) };
      } else body = { kind: 'close' };
      head = undefined;
      answered = true;
      resolve({ status, headers: fields, body: iterate(), cancel: () => finish() });
      if (body.kind === 'none' || (body.kind === 'length' && body.left === 0)) finish();
      return rest;
    };

    const onRead = (nread: number, buf: Buffer): boolean => {
      if (done || failure) return false;
      let d: Uint8Array | undefined = buf.subarray(0, nread);
      if (head !== undefined) {
        // the head is copied (small); the body bytes after it are a copy too, only later reads are lent
        d = feedHead(d);
        if (!d || d.byteLength === 0 || done || failure) return true;
      }
      feedBody(d);
      if (pieces.length === 0) return true;
      // hold the socket until the consumer has taken these pieces (the next read would overwrite them)
      paused = true;
      notify();
      return false;
    };

    async function* iterate(): AsyncGenerator<Uint8Array> {
      try {
        for (;;) {
          const piece = pieces.shift();
          if (piece) {
            yield piece;
            continue;
          }
          if (failure) throw failure;
          if (done) return;
          const waiting = new Promise<void>((r) => {
            wake = r;
          });
          if (paused) {
            paused = false;
            socket.resume();
          }
          await waiting;
        }
      } finally {
        if (!done) finish();
      }
    }

    const socket: Socket = connect({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port || 80),
      onread: { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: onRead },
    });
    socket.setNoDelay(true);
    socket.on('connect', () => socket.write(request));
    socket.on('error', (e) => fail(e));
    socket.on('end', () => {
      if (head !== undefined) fail(new Http1Error('the connection closed before a response'));
      else if (body.kind === 'close') finish();
      else fail(new Error('the connection closed before the end of the body'));
    });
    socket.on('close', () => fail(new Error('the connection closed')));
    const onAbort = () => fail(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('close', () => signal.removeEventListener('abort', onAbort));
  });
}

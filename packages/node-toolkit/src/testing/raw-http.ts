import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** the status line and headers, as sent */
  head: string;
  /** the body, de-chunked, as UTF-8 text */
  body: string;
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  while (i < bytes.length) {
    const eol = bytes.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = Number.parseInt(bytes.subarray(i, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * Send one HTTP/1.1 request as written over a plain socket and read the answer: what tests of either host need for
 * requests `fetch` refuses to send (an invalid `Host`, an absolute-form target). The socket is closed as soon as the
 * whole answer is in (by Content-Length or the last chunk), so a host that keeps the connection open does not stall it.
 */
export function rawHttp(port: number, request: string, timeoutMs = 15_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('timeout')));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return;
      const len = /\r\ncontent-length: (\d+)/i.exec(all.subarray(0, end).toString('latin1'));
      const rest = all.subarray(end + 4);
      if ((len && rest.length >= Number(len[1])) || (!len && rest.subarray(-5).toString('latin1') === '0\r\n\r\n')) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const head = (end >= 0 ? all.subarray(0, end) : all).toString('latin1');
      let body: Buffer = end >= 0 ? all.subarray(end + 4) : Buffer.alloc(0);
      if (/\r\ntransfer-encoding: chunked/i.test(head)) body = dechunk(body);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: body.toString('utf8') });
    });
    socket.write(request);
  });
}

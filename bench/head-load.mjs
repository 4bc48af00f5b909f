// A small keep-alive load generator for HEAD requests (wrk cannot measure HEAD answers that carry a
// Content-Length: it waits for a body that never comes). Usage: node bench/head-load.mjs URL CONNECTIONS SECONDS
// Prints `Requests/sec: N`.
import net from 'node:net';

const [url, c = '50', s = '5'] = process.argv.slice(2);
const u = new URL(url);
const request = Buffer.from(`HEAD ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
const end = Date.now() + Number(s) * 1000;
let done = 0;
await Promise.all(
  Array.from(
    { length: Number(c) },
    () =>
      new Promise((resolve) => {
        const socket = net.connect(Number(u.port), u.hostname);
        let buf = '';
        socket.setNoDelay(true);
        socket.on('connect', () => socket.write(request));
        socket.on('data', (d) => {
          buf += d.toString('latin1');
          for (let i = buf.indexOf('\r\n\r\n'); i !== -1; i = buf.indexOf('\r\n\r\n')) {
            buf = buf.slice(i + 4);
            done++;
            if (Date.now() >= end) {
              socket.destroy();
              return resolve();
            }
            socket.write(request);
          }
        });
        socket.on('error', () => resolve());
        socket.on('close', () => resolve());
      }),
  ),
);
console.log(`Requests/sec: ${(done / Number(s)).toFixed(2)}`);

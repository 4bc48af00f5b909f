// Baseline servers for the benchmark: they answer the exact bytes (status, headers, body) the hub
// answered, from a lookup by URL. Mode `koa`: a Koa app with one middleware. Mode `bare`: node:http.
// Usage: node bench/baseline.mjs <koa|bare> <port> <fixtures.json>
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';

const [mode, port, file] = process.argv.slice(2);
const fixtures = JSON.parse(readFileSync(file, 'utf8'));
const routes = new Map(fixtures.map((f) => [f.url, { status: f.status, headers: f.headers, body: Buffer.from(f.body, 'base64') }]));

let server;
if (mode === 'koa') {
  const require = createRequire(new URL('../apps/node-server/package.json', import.meta.url));
  const Koa = require('koa');
  const app = new Koa();
  app.use((ctx) => {
    const r = routes.get(ctx.url);
    if (!r) {
      ctx.status = 404;
      return;
    }
    ctx.status = r.status;
    ctx.set(r.headers);
    ctx.body = r.body;
  });
  server = http.createServer(app.callback());
} else {
  server = http.createServer((req, res) => {
    const r = routes.get(req.url);
    if (!r) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(r.status, r.headers);
    res.end(r.body);
  });
}
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`ready ${port}\n`));

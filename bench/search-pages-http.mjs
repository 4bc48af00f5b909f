// The pages of a search that walks the order, over HTTP (issue 39, docs/benchmarks.md "A search's next page goes on
// from where its walk ended"): one node-server of a built checkout on a paged DATA folder; for each query, its pages
// followed by `Link: rel="next"` (the cursor carries where the last walk ended) and the same pages asked by an offset
// cursor alone (`o:OFFSET`, as a link of an older hub, which walks from the start), alternating page by page. Prints,
// per way, the time of the first pages and of the last, the matches listed, and whether the list ended early. Read
// the day's pages once first (`node bench/warm-pages.mjs DATA`) so the page cache is not what is measured.
// Usage: node bench/search-pages-http.mjs CHECKOUT DATA [--pages 40] [--port 18420] [--query 'search=d.&limit=50' ...]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    pages: { type: 'string', default: '40' },
    port: { type: 'string', default: '18420' },
    query: { type: 'string', multiple: true },
  },
  allowPositionals: true,
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
const [checkout, data] = positionals;
if (!checkout || !data) {
  console.error('usage: node bench/search-pages-http.mjs CHECKOUT DATA [--pages 40] [--port 18420] [--query Q ...]');
  process.exit(2);
}
const pages = Number(values.pages);
const queries = values.query ?? ['search=d.&limit=50', 'search=d.&sort=likes&limit=50'];
const base = `http://127.0.0.1:${values.port}`;
const config = path.join(path.dirname(new URL(import.meta.url).pathname), 'short-words-http.json');
const server = spawn(
  process.execPath,
  [
    path.join(checkout, 'apps/node-server/dist/cli.js'),
    'serve',
    '--port',
    values.port,
    '--host',
    '127.0.0.1',
    '--data',
    data,
    '--config',
    config,
  ],
  { env: { ...process.env, HUB_LOG_LEVEL: 'warn', HUB_INDEX_STORE: 'paged' }, stdio: 'ignore' },
);
process.on('exit', () => server.kill());
for (let i = 0; i < 300; i++) {
  if (
    await fetch(`${base}/-/live`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 100));
}

/** One page: its time in ms, its models, and the next page's path (or undefined). */
async function page(pathAndQuery) {
  const t = performance.now();
  const res = await fetch(`${base}${pathAndQuery}`);
  const body = await res.json();
  const ms = performance.now() - t;
  const link = res.headers.get('link');
  const next = link ? /^<http:\/\/[^/]+([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
  return { ms, n: body.length, next };
}

const offsetCursor = (o) => btoa(`o:${o}`).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
const fmt = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)]?.toFixed(1)} ms (${s[0]?.toFixed(1)}–${s.at(-1)?.toFixed(1)})`;
};

for (const q of queries) {
  const byPlace = [];
  const byOffset = [];
  let next = `/api/models?${q}`;
  let offset = 0;
  let listedPlace = 0;
  let listedOffset = 0;
  let offsetEnded;
  for (let k = 0; k < pages && next; k++) {
    // alternate which way goes first
    const ask = async () => page(next);
    const askOffset = async () =>
      offsetEnded === undefined ? page(`/api/models?${q}${offset ? `&cursor=${offsetCursor(offset)}` : ''}`) : undefined;
    const [a, b] = k % 2 ? [await askOffset(), await ask()].reverse() : [await ask(), await askOffset()];
    byPlace.push(a.ms);
    listedPlace += a.n;
    if (b) {
      byOffset.push(b.ms);
      listedOffset += b.n;
      if (!b.next) offsetEnded = k + 1;
    }
    offset += a.n;
    next = a.next;
  }
  const head = (xs) => fmt(xs.slice(0, 5));
  const tail = (xs) => fmt(xs.slice(-5));
  console.log(`${q}`);
  console.log(`  by place:  ${byPlace.length} pages, ${listedPlace} models; first 5 ${head(byPlace)}; last 5 ${tail(byPlace)}`);
  console.log(
    `  by offset: ${byOffset.length} pages, ${listedOffset} models${offsetEnded ? ` (the list ended at page ${offsetEnded})` : ''}; first 5 ${head(byOffset)}; last 5 ${tail(byOffset)}`,
  );
}
server.kill();

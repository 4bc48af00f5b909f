// @hub/client runs unchanged in a browser (Chromium, another origin, so CORS is exercised) and under
// workerd (Miniflare): the same esbuild bundle of packages/client/src/index.ts downloads and verifies a
// SYNTHETIC file through a real hub on loopback.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSignerKey, parseSignerKey } from '@hub/core-index';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMiniflare } from '../apps/edge/test/harness.js';
import { startTestHub, type TestHub } from '../apps/node-server/test/helpers.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = new Uint8Array(300_000).map((_, i) => (i * 17 + 3) & 0xff);
const SHA = createHash('sha256').update(DATA).digest('hex');
let hub: TestHub;
/** The verifier key of the test hub's transparency log (SYNTHETIC key, made for this run). */
let vkey: string;

async function bundle(entry: { contents: string } | string): Promise<string> {
  const tsup = createRequire(path.join(ROOT, 'package.json')).resolve('tsup');
  const esbuild = (await import(createRequire(tsup).resolve('esbuild'))) as {
    build(o: Record<string, unknown>): Promise<{ outputFiles: Array<{ text: string }> }>;
  };
  const r = await esbuild.build({
    ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: { contents: entry.contents, resolveDir: ROOT, loader: 'ts' } }),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    mainFields: ['module', 'main'],
    plugins: [
      {
        name: 'hub-sources',
        setup(build: { onResolve(o: { filter: RegExp }, f: (a: { path: string }) => { path: string } | undefined): void }) {
          build.onResolve({ filter: /^@hub\/(client|core-index)(\/light)?$/ }, (a) => ({
            path: path.join(ROOT, 'packages', a.path.split('/')[1] ?? '', 'src', a.path.endsWith('/light') ? 'light.ts' : 'index.ts'),
          }));
        },
      },
    ],
  });
  return r.outputFiles[0]?.text ?? '';
}

beforeAll(async () => {
  const key = await generateSignerKey('hub.test/api/hub/log');
  vkey = key.verifierKey;
  hub = await startTestHub({ trees: { 'acme/demo': { 'demo.bin': DATA } }, signers: [await parseSignerKey(key.signerKey)] });
});
afterAll(async () => {
  await hub?.close();
});

const RUN = `
  const opts = { hub: HUB, stallSeconds: 5 };
  const files = C.selectFiles(await C.listFiles(opts, 'acme/demo'), ['demo.bin']);
  const sink = C.memorySink();
  const r = await C.downloadFile(opts, 'acme/demo', 'main', files[0], sink);
  const bytes = sink.bytes();
  // The hub's signed history (issue 30): the checkpoint's Ed25519 signature through the runtime's WebCrypto, the
  // tiles, the day's inclusion, then the day walked down to the file's SHA-256.
  const log = await C.verifyHubLog({ hub: HUB, keys: [VKEY] });
  const logged = log.walk.sha256.get('acme/demo')?.get('demo.bin');
  return { ok: r.ok, source: r.source, size: bytes.byteLength, sha256: files[0].sha256, log: { size: log.size, day: log.entry.date, logged } };
`;

const LOGGED = { size: 1, day: '2026-11-22', logged: SHA };

describe('@hub/client outside Node', () => {
  it('downloads and verifies a file in Chromium, from another origin (CORS)', async () => {
    const code = await bundle(path.join(ROOT, 'packages', 'client', 'src', 'index.ts'));
    expect(code).not.toMatch(/from\s*["']node:/);
    const page: Server = createServer((req, res) => {
      if (req.url === '/client.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      const html = `<!doctype html><title>client</title><script type="module">
import * as C from '/client.js';
const HUB = ${JSON.stringify(hub.url)};
const VKEY = ${JSON.stringify(vkey)};
window.result = (async () => { ${RUN} })().catch((e) => ({ error: String(e) }));
</script>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const tab = await browser.newPage();
      await tab.goto(`${origin}/`);
      await tab.waitForFunction(() => 'result' in window);
      const out = await tab.evaluate(() => (window as unknown as { result: Promise<unknown> }).result);
      expect(out).toEqual({ ok: true, source: 'test-mirror', size: DATA.byteLength, sha256: SHA, log: LOGGED });
    } finally {
      await browser.close();
      page.close();
    }
  }, 90_000);

  it('downloads and verifies a file under workerd (Miniflare)', async () => {
    const script = await bundle({
      contents: `import * as C from '@hub/client';
        export default { async fetch(req) {
          const HUB = new URL(req.url).searchParams.get('hub');
          const VKEY = new URL(req.url).searchParams.get('vkey');
          const run = async () => { ${RUN} };
          return Response.json(await run());
        } };`,
    });
    const { Miniflare } = await loadMiniflare();
    const mf = new Miniflare({ modules: true, script, compatibilityDate: '2026-04-20' }) as unknown as {
      dispatchFetch(url: string): Promise<Response>;
      dispose(): Promise<void>;
    };
    try {
      const r = await mf.dispatchFetch(`http://worker/?hub=${encodeURIComponent(hub.url)}&vkey=${encodeURIComponent(vkey)}`);
      expect(await r.json()).toEqual({ ok: true, source: 'test-mirror', size: DATA.byteLength, sha256: SHA, log: LOGGED });
    } finally {
      await mf.dispose();
    }
  }, 90_000);
});

// The daily archive as a signed transparency log (issue 30, design 10.4), checked by Go's own packages
// (golang.org/x/mod/sumdb/note and sumdb/tlog, from Debian's golang-golang-x-mod-dev, built offline), by
// `hub index verify --log` and by @hub/client: a real log passes; a flipped checkpoint byte, a flipped tile byte and
// a log whose day 2 was rebuilt differently fail. Every hub, proxy and program runs on 127.0.0.1 in a temp folder.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { modelFilesFromLog, verifyHubLog } from '@hub/client';
import { generateSignerKey, LogVerifyError, parseSignerKey } from '@hub/core-index';
import { ARCHIVE_LAYER, CHECKPOINT_LAYER } from '@hub/dialect-oci';
import { buildFromDir, tempDirs } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, OVERVIEW } from '../src/cli-commands.js';
import { runCli } from '../src/cli-framework.js';
import { getCommand } from '../src/cli-get.js';
import { ConfigError } from '../src/config.js';
import { loadSigners } from '../src/signing.js';
import { startTestHub, TEST_SOURCE, type TestHub } from './helpers.js';
import { buildTlogCheck } from './tlogcheck.js';

const run = promisify(execFile);
const tmp = tempDirs(afterAll);
const ORIGIN = 'hub.test/api/hub/log';

// SYNTHETIC model trees, one per day: day 2 adds a file, day 3 a model.
const DAY1 = { 'synthetic-org/alpha': { 'config.json': '{"SYNTHETIC":1}' } };
const DAY2 = { 'synthetic-org/alpha': { 'config.json': '{"SYNTHETIC":1}', 'weights.bin': 'SYNTHETIC weights, day 2' } };
const DAY2_REBUILT = { 'synthetic-org/alpha': { 'config.json': '{"SYNTHETIC":1}', 'weights.bin': 'SYNTHETIC weights, rewritten' } };
const DAY3 = { ...DAY2, 'synthetic-org/beta': { 'README.md': 'SYNTHETIC beta' } };
const DAY4 = { ...DAY3, 'synthetic-org/gamma': { 'README.md': 'SYNTHETIC gamma' } };

type Trees = Record<string, Record<string, string>>;

async function writeTrees(dir: string, trees: Trees) {
  await rm(dir, { recursive: true, force: true });
  for (const [id, files] of Object.entries(trees))
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(path.join(dir, id, path.dirname(rel)), { recursive: true });
      await writeFile(path.join(dir, id, rel), content);
    }
}

/** Build the given days into a fresh data folder (signed with `keyFile`) and serve it. */
async function hubWithDays(days: Array<[string, Trees]>, keyFile: string): Promise<TestHub> {
  const dataDir = await tmp('hub-tlog-');
  const signers = await loadSigners({ signingKey: keyFile });
  const store = new FsObjectStore(dataDir);
  const treeDir = path.join(dataDir, 'tree');
  for (const [date, trees] of days) {
    await writeTrees(treeDir, trees);
    await buildFromDir(store, { dir: treeDir, sources: [{ name: TEST_SOURCE }], date, signers });
  }
  return startTestHub({ dataDir, trees: days[days.length - 1]?.[1] as Trees });
}

/** A loopback proxy in front of a hub that can change the bytes of one path (a lying mirror of the log). */
async function tamperingProxy(target: () => string, tamper: () => { path: string; flip: number } | undefined) {
  const server = http.createServer(async (req, res) => {
    const upstream = await fetch(`${target()}${req.url}`);
    let body = new Uint8Array(await upstream.arrayBuffer());
    const t = tamper();
    if (t && req.url === t.path) {
      body = new Uint8Array(body);
      body[t.flip] = (body[t.flip] as number) ^ 0x01;
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let keyFile: string;
let vkey: string;
let go: Awaited<ReturnType<typeof buildTlogCheck>>;
let real: TestHub;
let rebuilt: TestHub;
let proxy: Awaited<ReturnType<typeof tamperingProxy>>;
let proxyTarget = () => real.url;
let tampering: { path: string; flip: number } | undefined;

beforeAll(async () => {
  const dir = await tmp('hub-tlog-key-');
  keyFile = path.join(dir, 'log.key');
  const key = await generateSignerKey(ORIGIN);
  await writeFile(keyFile, `${key.signerKey}\n`, { mode: 0o600 });
  vkey = key.verifierKey;
  // Go's tools, built offline from Debian's golang-go and golang-golang-x-mod-dev (GOPATH mode, no module download).
  go = await buildTlogCheck(await tmp('hub-tlog-go-'), vkey);
  real = await hubWithDays(
    [
      ['2026-11-21', DAY1],
      ['2026-11-22', DAY2],
      ['2026-11-23', DAY3],
    ],
    keyFile,
  );
  // The same hub (same key) that rebuilt day 2 differently, then went on: days 3 and 4 chain onto the new day 2.
  rebuilt = await hubWithDays(
    [
      ['2026-11-21', DAY1],
      ['2026-11-22', DAY2_REBUILT],
      ['2026-11-23', DAY3],
      ['2026-11-24', DAY4],
    ],
    keyFile,
  );
  proxy = await tamperingProxy(
    () => proxyTarget(),
    () => tampering,
  );
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await real?.close();
  await rebuilt?.close();
});

/** `hub …` in-process through the CLI's command table (what the binary runs), its output as text. */
async function hub(argv: string[]) {
  let out = '';
  const io = { out: (t: string) => (out += t), err: (t: string) => (out += t), tty: false, env: {} };
  const code = await runCli(COMMANDS, argv, io, OVERVIEW);
  return { code, out: out.trimEnd() };
}

const cliVerify = (url: string, state: string, extra: string[] = []) =>
  hub(['index', 'verify', '--log', url, '--key', vkey, '--state', state, ...extra]);

const via = (t: { path: string; flip: number } | undefined, target: () => string = () => real.url) => {
  tampering = t;
  proxyTarget = target;
};

describe('the hub serves its archive as a C2SP transparency log', () => {
  it('announces the log in the descriptor and the archive; serves the checkpoint, tiles and bundles', async () => {
    const descriptor = await (await fetch(`${real.url}/.well-known/model-hub.json`)).json();
    expect(descriptor.log).toEqual({
      prefix: '/api/hub/log',
      checkpoint: '/api/hub/log/checkpoint',
      origin: ORIGIN,
      size: 3,
      keys: [vkey],
    });
    // An agent reading the MCP resource learns the same, the log included.
    const mcp = new Client({ name: 'log-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${real.url}/mcp`)));
    try {
      const read = await mcp.readResource({ uri: 'hub://descriptor' });
      expect(JSON.parse(String((read.contents[0] as { text: string }).text))).toEqual(descriptor);
    } finally {
      await mcp.close();
    }
    const archive = await (await fetch(`${real.url}/api/hub/archive`)).json();
    expect(archive.log.keys).toEqual([vkey]);
    expect(archive.days.map((d: { date: string; leaf: number }) => [d.date, d.leaf])).toEqual([
      ['2026-11-23', 2],
      ['2026-11-22', 1],
      ['2026-11-21', 0],
    ]);
    const cp = await fetch(`${real.url}/api/hub/log/checkpoint`);
    expect(cp.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await cp.text()).toMatch(
      new RegExp(`^${ORIGIN.replace(/\./g, '\\.')}\\n3\\n[A-Za-z0-9+/]{43}=\\n\\n\u2014 ${ORIGIN.replace(/\./g, '\\.')} `),
    );
    const tile = await fetch(`${real.url}/api/hub/log/tile/0/000.p/3`);
    expect(tile.headers.get('cache-control')).toMatch(/immutable/);
    expect((await tile.arrayBuffer()).byteLength).toBe(96);
    // A narrower partial tile is the start of the wider one; a wider one than the tree has does not exist.
    expect(new Uint8Array(await (await fetch(`${real.url}/api/hub/log/tile/0/000.p/2`)).arrayBuffer())).toHaveLength(64);
    const missing = await fetch(`${real.url}/api/hub/log/tile/0/000.p/4`);
    expect([missing.status, missing.headers.get('x-error-code')]).toEqual([404, 'TileNotFound']);
    const bad = await fetch(`${real.url}/api/hub/log/tile/0/1.p/3`);
    expect([bad.status, bad.headers.get('x-error-code')]).toEqual([400, 'BadTilePath']);
    const bundle = new Uint8Array(await (await fetch(`${real.url}/api/hub/log/tile/entries/000.p/3`)).arrayBuffer());
    const first = JSON.parse(new TextDecoder().decode(bundle.subarray(2, 2 + ((bundle[0] as number) << 8) + (bundle[1] as number))));
    expect(first).toMatchObject({ kind: 'model-hub.log-entry', date: '2026-11-21', prev: null });
  });

  it("carries each day's checkpoint into the OCI archive (hub/index) as a second layer", async () => {
    const accept = { accept: 'application/vnd.oci.image.manifest.v1+json' };
    const manifest = await (await fetch(`${real.url}/v2/hub/index/manifests/2026-11-22`, { headers: accept })).json();
    expect(manifest.layers.map((l: { mediaType: string }) => l.mediaType)).toEqual([ARCHIVE_LAYER, CHECKPOINT_LAYER]);
    expect(manifest.annotations['svc.model-hub.leaf']).toBe('1');
    const blob = await (await fetch(`${real.url}/v2/hub/index/blobs/${manifest.layers[1].digest}`)).text();
    // The checkpoint signed right after day 2 joined the log: a tree of 2 leaves.
    expect(blob).toMatch(new RegExp(`^${ORIGIN.replace(/\./g, '\\.')}\\n2\\n`));
  });
});

describe("Go's sumdb/note and sumdb/tlog check the hub's log", () => {
  it('accepts the real log: note.Open with the verifier key, ProveRecord/CheckRecord of every day over the tiles', async () => {
    const r = await go(`${real.url}/api/hub/log`);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`ok checkpoint ${ORIGIN} size 3`);
    expect(r.out).toMatch(/ok record 2 \{"catalog":"blake3:[0-9a-f]{64}","date":"2026-11-23"/);
  });

  it('rejects a checkpoint with one flipped byte and a tile with one flipped byte', async () => {
    via({ path: '/api/hub/log/checkpoint', flip: 30 });
    const cp = await go(`${proxy.url}/api/hub/log`);
    expect(cp.code).toBe(1);
    expect(cp.out).toMatch(/checkpoint signature: .*(invalid signature|malformed)/);
    via({ path: '/api/hub/log/tile/0/000.p/3', flip: 40 });
    const tile = await go(`${proxy.url}/api/hub/log`);
    expect(tile.code).toBe(1);
    expect(tile.out).toContain('downloaded inconsistent tile');
    via(undefined);
  });

  it('rejects the log whose day 2 was rebuilt: its tree is not consistent with the day-3 checkpoint seen before', async () => {
    const old = path.join(await tmp('hub-tlog-old-'), 'checkpoint');
    await writeFile(old, await (await fetch(`${real.url}/api/hub/log/checkpoint`)).text());
    expect((await go(`${real.url}/api/hub/log`, old)).code).toBe(0);
    const r = await go(`${rebuilt.url}/api/hub/log`, old);
    expect(r.code).toBe(1);
    expect(r.out).toContain('tlogcheck: consistency 3 -> 4: invalid transparency proof');
  });
});

describe('hub index verify --log and @hub/client check the same cases', () => {
  it('accepts the real log and walks the day to file SHA-256; then proves consistency from the state it kept', async () => {
    const state = path.join(await tmp('hub-tlog-state-'), 'seen.json');
    const first = await cliVerify(`${real.url}/api/hub/log`, state);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain(`checkpoint ${ORIGIN}: 3 leaves`);
    expect(first.out).toContain('day 2026-11-23 (leaf 2) included');
    expect(first.out).toContain('walked 2 models, 3 files');
    const again = await cliVerify(`${real.url}/api/hub/log/checkpoint`, state, ['--day', '2026-11-22']);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('consistent with the checkpoint of size 3 seen before');
    expect(again.out).toContain('day 2026-11-22 (leaf 1) included');

    const client = await verifyHubLog({ hub: real.url, keys: [vkey] });
    expect(client.size).toBe(3);
    expect(client.walk.sha256.get('synthetic-org/alpha')?.size).toBe(2);
  });

  it('rejects a flipped checkpoint byte, a flipped tile byte and a rewritten day 2 (named)', async () => {
    const dir = await tmp('hub-tlog-state-');
    via({ path: '/api/hub/log/checkpoint', flip: 30 });
    const cp = await cliVerify(`${proxy.url}/api/hub/log`, path.join(dir, 'a.json'));
    expect([cp.code, cp.out]).toEqual([1, expect.stringMatching(/^FAULT signature: /)]);
    await expect(verifyHubLog({ log: `${proxy.url}/api/hub/log`, keys: [vkey] })).rejects.toMatchObject({ failure: 'signature' });

    via({ path: '/api/hub/log/tile/0/000.p/3', flip: 40 });
    const tile = await cliVerify(`${proxy.url}/api/hub/log`, path.join(dir, 'b.json'));
    expect([tile.code, tile.out]).toEqual([1, "FAULT tile: tile/0/000.p/3 does not match the log's entries"]);
    await expect(verifyHubLog({ log: `${proxy.url}/api/hub/log`, keys: [vkey] })).rejects.toMatchObject({ failure: 'tile' });

    // The day-3 checkpoint is seen first; then the hub (reached at the same place) serves the rebuilt log.
    via(undefined);
    const state = path.join(dir, 'c.json');
    expect((await cliVerify(`${proxy.url}/api/hub/log`, state)).code).toBe(0);
    via(undefined, () => rebuilt.url);
    const rewritten = await cliVerify(`${proxy.url}/api/hub/log`, state);
    expect(rewritten.code).toBe(1);
    expect(rewritten.out).toMatch(/^FAULT rewritten: the log was rewritten: day 2026-11-22 \(leaf 1\) differs from the one seen before/);
    const seen = JSON.parse(await readFile(state, 'utf8'));
    expect(seen.size).toBe(3);
    const error = await verifyHubLog({ log: `${proxy.url}/api/hub/log`, keys: [vkey], seen }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogVerifyError);
    expect(error).toMatchObject({ failure: 'rewritten', firstDifferingDay: '2026-11-22' });
    via(undefined);
  });

  it('hub get --verify-log downloads a model of a verified day and refuses one the log does not back', async () => {
    const dir = await tmp('hub-tlog-get-');
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), tty: false, env: {} };
    const args = (hub: string, state: string) => [
      'synthetic-org/alpha',
      '--hub',
      hub,
      '--to',
      dir,
      '--verify-log',
      '--key',
      vkey,
      '--state',
      state,
    ];
    expect(await getCommand(args(real.url, path.join(dir, 'seen.json')), io), lines.join('\n')).toBe(0);
    expect(lines.some((l) => l.includes('"event":"log-verified"') && l.includes('2026-11-23'))).toBe(true);
    expect(await readFile(path.join(dir, 'weights.bin'), 'utf8')).toBe('SYNTHETIC weights, day 2');
    // The state says the day-3 log was seen; the hub now serves a log with day 2 rewritten.
    lines.length = 0;
    via(undefined, () => rebuilt.url);
    expect(await getCommand(args(proxy.url, path.join(dir, 'seen.json')), io)).toBe(1);
    expect(lines.join('\n')).toMatch(/refused: the hub's log does not verify \(rewritten\)/);
    via(undefined);
    const other = await generateSignerKey(ORIGIN);
    await expect(modelFilesFromLog({ hub: real.url, keys: [other.verifierKey] }, 'synthetic-org/alpha')).rejects.toMatchObject({
      failure: 'signature',
    });
    expect(await getCommand(['synthetic-org/alpha', '--hub', real.url, '--verify-log'], io)).toBe(2);
  });
});

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');

describe.skipIf(!existsSync(CLI))('the built hub binary (pnpm test builds first)', () => {
  it('hub index verify --log exits 0 on the real log and 1 naming the rewritten day, with the state kept between', async () => {
    const state = path.join(await tmp('hub-tlog-bin-'), 'seen.json');
    const bin = async (hubUrl: string) => {
      try {
        const { stdout } = await run(process.execPath, [
          CLI,
          'index',
          'verify',
          '--log',
          `${hubUrl}/api/hub/log`,
          '--key',
          vkey,
          '--state',
          state,
        ]);
        return { code: 0, out: stdout };
      } catch (e) {
        const err = e as { code: number; stdout: string; stderr: string };
        return { code: err.code, out: err.stdout + err.stderr };
      }
    };
    via(undefined);
    const ok = await bin(proxy.url);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain('day 2026-11-23 (leaf 2) included');
    via(undefined, () => rebuilt.url);
    const bad = await bin(proxy.url);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('FAULT rewritten: the log was rewritten: day 2026-11-22 (leaf 1) differs from the one seen before');
    via(undefined);
  });
});

describe('hub keys generate and the signing key file', () => {
  it('writes a key usable as signingKey, prints its verifier key, never overwrites, and a usage mistake exits 2', async () => {
    const dir = await tmp('hub-tlog-keys-');
    const file = path.join(dir, 'k');
    const made = await hub(['keys', 'generate', '--out', file, '--name', 'hub.test/log']);
    expect(made.code).toBe(0);
    const signer = await parseSignerKey(await readFile(file, 'utf8'));
    const [vk] = made.out.split('\n');
    expect(vk).toBe(signer.verifierKey);
    expect(vk).toMatch(/^hub\.test\/log\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    const again = await hub(['keys', 'generate', '--out', file]);
    expect([again.code, again.out.split('\n')[0]]).toEqual([2, `hub keys generate: ${file} exists; a key is never overwritten`]);
    expect((await hub(['keys', 'generate'])).code).toBe(2);
    expect((await hub(['keys', 'generate', '--out', path.join(dir, 'x'), '--name', 'has space'])).code).toBe(2);
    expect((await hub(['index', 'verify', '--log', 'not a url', '--key', vkey])).code).toBe(2);
    expect((await hub(['keys', 'generate', '--help'])).out).toContain('--out FILE');
    expect((await hub(['index', 'verify', '--help'])).out).toContain('--log URL --key VKEY');
  });

  it('a broken key file is refused by its path alone: its content is never repeated', async () => {
    const dir = await tmp('hub-tlog-badkey-');
    const file = path.join(dir, 'bad.key');
    await writeFile(file, 'PRIVATE+KEY+hub.test/log+00000000+SECRETSECRETSECRET');
    const error = await loadSigners({}, { HUB_SIGNING_KEY_FILE: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).not.toContain('SECRET');
  });
});

// A transparency log past 256 days (issue 37, defect 2): its first level-0 hash tile and its first entry bundle are
// full, and so served at `tile/0/000` and `tile/entries/000` without a `.p/<W>` suffix. Go's own verifier
// (sumdb/tlog's TileHashReader through fixtures/tlogcheck), `hub index verify --log` and @hub/client read past them.
// The hub runs on 127.0.0.1 over a temp folder.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { verifyHubLog } from '@hub/client';
import { appendDays, generateSignerKey, parseSignerKey } from '@hub/core-index';
import { buildFromDir, tempDirs } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, OVERVIEW } from '../src/cli-commands.js';
import { runCli } from '../src/cli-framework.js';
import { startTestHub, TEST_SOURCE, type TestHub } from './helpers.js';
import { buildTlogCheck } from './tlogcheck.js';

const tmp = tempDirs(afterAll);
const ORIGIN = 'hub.test/api/hub/log';
/** SYNTHETIC archived days (made-up dates and addresses) logged before the one real build. */
const EARLIER_DAYS = 300;

let hub: TestHub;
let vkey: string;
let go: Awaited<ReturnType<typeof buildTlogCheck>>;

beforeAll(async () => {
  const key = await generateSignerKey(ORIGIN);
  vkey = key.verifierKey;
  go = await buildTlogCheck(await tmp('hub-tlog-full-go-'), vkey);
  const dataDir = await tmp('hub-tlog-full-');
  const store = new FsObjectStore(dataDir);
  await appendDays(
    store,
    Array.from({ length: EARLIER_DAYS }, (_, i) => {
      const hex = i.toString(16).padStart(4, '0').repeat(16);
      const date = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      return { date, index: `blake3:${hex}`, catalog: `blake3:${hex}` };
    }),
  );
  // Then a real day, built and signed: the checkpoint covers all 301 leaves.
  const tree = path.join(dataDir, 'tree');
  await mkdir(path.join(tree, 'synthetic-org', 'alpha'), { recursive: true });
  await writeFile(path.join(tree, 'synthetic-org', 'alpha', 'config.json'), '{"SYNTHETIC":1}');
  await buildFromDir(store, {
    dir: tree,
    sources: [{ name: TEST_SOURCE }],
    date: '2026-11-21',
    signers: [await parseSignerKey(key.signerKey)],
  });
  hub = await startTestHub({ dataDir, trees: { 'synthetic-org/alpha': { 'config.json': '{"SYNTHETIC":1}' } } });
}, 120_000);

afterAll(async () => {
  await hub?.close();
});

describe('a log of 301 leaves', () => {
  it('serves the full tiles at their C2SP paths: tile/0/000 (256 hashes) and tile/entries/000 (256 entries)', async () => {
    const log = `${hub.url}/api/hub/log`;
    const full = await fetch(`${log}/tile/0/000`);
    expect([full.status, full.headers.get('cache-control')]).toEqual([200, expect.stringMatching(/immutable/)]);
    expect((await full.arrayBuffer()).byteLength).toBe(256 * 32);
    const bundle = new Uint8Array(await (await fetch(`${log}/tile/entries/000`)).arrayBuffer());
    let entries = 0;
    for (let at = 0; at < bundle.byteLength; entries++) at += 2 + (((bundle[at] as number) << 8) | (bundle[at + 1] as number));
    expect(entries).toBe(256);
    expect((await fetch(`${log}/tile/0/001.p/45`)).status).toBe(200);
    expect((await fetch(`${log}/tile/1/000.p/1`)).status).toBe(200);
    // A `.p/256` suffix is not how a full tile is named; a full tile beyond the tree does not exist.
    const suffixed = await fetch(`${log}/tile/0/000.p/256`);
    expect([suffixed.status, suffixed.headers.get('x-error-code')]).toEqual([400, 'BadTilePath']);
    const beyond = await fetch(`${log}/tile/0/001`);
    expect([beyond.status, beyond.headers.get('x-error-code')]).toEqual([404, 'TileNotFound']);
  });

  it("Go's TileHashReader reads past the full tile: every record proved into the signed checkpoint", async () => {
    const r = await go(`${hub.url}/api/hub/log`);
    expect(r.code, r.out.slice(-2000)).toBe(0);
    expect(r.out).toContain(`ok checkpoint ${ORIGIN} size 301`);
    expect(r.out).toMatch(/ok record 255 \{"catalog":"blake3:00ff/);
    expect(r.out).toMatch(/ok record 300 \{"catalog":"blake3:[0-9a-f]{64}","date":"2026-11-21"/);
  });

  it('hub index verify --log and @hub/client verify the same log', async () => {
    let out = '';
    const io = { out: (t: string) => (out += t), err: (t: string) => (out += t), tty: false, env: {} };
    const state = path.join(await tmp('hub-tlog-full-state-'), 'seen.json');
    const code = await runCli(
      COMMANDS,
      ['index', 'verify', '--log', `${hub.url}/api/hub/log`, '--key', vkey, '--state', state],
      io,
      OVERVIEW,
    );
    expect(code, out).toBe(0);
    expect(out).toContain(`checkpoint ${ORIGIN}: 301 leaves`);
    expect(out).toContain('day 2026-11-21 (leaf 300) included');
    expect((await verifyHubLog({ hub: hub.url, keys: [vkey] })).size).toBe(301);
  });
});

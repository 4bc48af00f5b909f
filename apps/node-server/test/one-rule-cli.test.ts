/**
 * Round 3's doubles made single (issue 38 item 4), each guarded by behaviour as tests/one-rule-users.test.ts guards
 * its rules: every user of a rule is called and compared with the rule itself, so a second copy fails here by what it
 * does, however it is spelled. The default hub URL, the ModelScope default, one sha256File, one usage-error path, one
 * hostOf, and one "append the day and switch current" for the builder and bundle import.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256File } from '@hub/client/get';
import { verifyMirror, writeMirrorManifest } from '@hub/client/node';
import {
  type Archive,
  type BuildModelInput,
  buildIndex,
  checkLogStore,
  DEFAULT_SOURCES,
  MODELSCOPE_URL,
  mirrorFilePath,
  readLogState,
  silentLogger,
} from '@hub/core-index';
import { request } from '@hub/core-index/testing';
import { createComposedTestHub } from '@hub/hub/testing';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { FakeUpstream } from '@hub/upstream/testing';
import { http as mswHttp } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import { bundleCreate, bundleImport } from '../src/bundle.js';
import { bundleCreateCommand, bundleImportCommand } from '../src/cli-bundle.js';
import { COMMANDS } from '../src/cli-commands.js';
import { type CliIo, DEFAULT_HUB_URL, hubUrlOf, runCommand } from '../src/cli-framework.js';
import { getCommand } from '../src/cli-get.js';
import { mirrorPull, mirrorVerify } from '../src/cli-mirror.js';
import { verifyCacheCommand } from '../src/cli-verify-cache.js';
import { buildFromUpstream } from '../src/upstream-build.js';
import { runCli } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const tmp = tempDirs(afterAll);

const hub = (args: string[], env: Record<string, string>) => runCli(args, env);

describe('the default hub URL: written once, HUB_URL read over it, the option over both', () => {
  it('hubUrlOf', () => {
    expect(hubUrlOf(undefined, {})).toBe(DEFAULT_HUB_URL);
    expect(hubUrlOf(undefined, { HUB_URL: 'http://hub.lan:9000/' })).toBe('http://hub.lan:9000');
    expect(hubUrlOf('http://given.lan/', { HUB_URL: 'http://hub.lan:9000' })).toBe('http://given.lan');
  });

  it('every option that names the hub says the one default', () => {
    const named = COMMANDS.flatMap((c) => Object.values(c.options).filter((o) => /^The hub\b/.test(o.help)));
    expect(named.length).toBeGreaterThanOrEqual(7);
    for (const o of named) expect(o.help).toContain(`else ${DEFAULT_HUB_URL})`);
  });

  it.skipIf(!existsSync(CLI))('every client command goes to HUB_URL when no option names the hub (needs the built CLI)', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const dir = await tmp('hub-rule-');
    await writeFile(path.join(dir, 'index.html'), '<p>SYNTHETIC</p>');
    const runs = [
      ['get', 'acme/widget'],
      ['verify-cache', dir],
      ['mirror', 'pull', path.join(dir, 'm'), '--top', '1'],
      ['objects', 'put', path.join(dir, 'index.html'), '--kind', 'model-hub.model', '--token', 't'],
      ['spaces', 'put', dir, '--name', 'rule', '--token', 't'],
      ['buckets', 'get', 'rule:v1', path.join(dir, 'b')],
    ];
    for (const args of runs) {
      const r = await hub(args, { HUB_URL: dead });
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toContain(dead);
    }
  });
});

describe('the ModelScope default: written once (core-index MODELSCOPE_URL)', () => {
  const ms = setupServer(
    mswHttp.all('https://hf.rule.test/*', ({ request }) => fake.handle(request)),
    mswHttp.all(`${MODELSCOPE_URL}/*`, ({ request }) => {
      asked.push(request.url);
      return fake.handle(request);
    }),
  );
  const asked: string[] = [];
  const fake = new FakeUpstream(modelHostFixtures(), {
    base: 'https://hf.rule.test',
    msBase: MODELSCOPE_URL,
    modelscope: { 'deepseek-ai/DeepSeek-V4-Pro': { from: 'deepseek-ai/DeepSeek-V4-Pro', mode: 'same' as const } },
  });
  beforeAll(() => ms.listen({ onUnhandledRequest: 'bypass' }));
  afterAll(() => ms.close());

  it('the source list, the index build without --modelscope and the options of serve and index build', async () => {
    expect(DEFAULT_SOURCES.find((s) => s.name === 'modelscope.cn')?.url?.startsWith(`${MODELSCOPE_URL}/`)).toBe(true);
    const summary = await buildFromUpstream({
      dataDir: await tmp('hub-rule-ms-'),
      upstream: 'https://hf.rule.test',
      top: 3,
      log: silentLogger,
    });
    expect(summary.models).toBeGreaterThan(0);
    expect(asked.length).toBeGreaterThan(0);
    for (const u of asked) expect(u.startsWith(`${MODELSCOPE_URL}/api/`)).toBe(true);
    for (const name of ['serve', 'index build']) {
      const c = COMMANDS.find((x) => x.name === name);
      expect(((c?.options ?? {}) as Record<string, { help: string }>).modelscope?.help).toContain(`(default ${MODELSCOPE_URL})`);
    }
  });
});

describe('one sha256File (the client mirror, bundle import, verify-cache and the bucket pull call it): it and the mirror check agree', () => {
  it('on sizes around the read step, and a flipped byte is found by the mirror check', async () => {
    const dir = await tmp('hub-rule-sha-');
    for (const size of [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
      const file = path.join(dir, `f${size}`);
      await writeFile(file, bytes);
      expect(await sha256File(file)).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    // A mirror folder holding one file under its SHA-256: verifyMirror agrees, and finds the flipped copy.
    const mirror = path.join(dir, 'mirror');
    const bytes = new TextEncoder().encode('SYNTHETIC mirror file\n');
    const hex = createHash('sha256').update(bytes).digest('hex');
    await mkdir(path.join(mirror, 'sha256'), { recursive: true });
    await writeFile(path.join(mirror, mirrorFilePath(hex)), bytes);
    await writeMirrorManifest(mirror, {
      models: [{ id: 'synthetic/m', revision: 'a'.repeat(40), files: [{ path: 'f', size: bytes.length, sha256: hex }] }],
      verified: new Date().toISOString(),
    });
    expect((await verifyMirror(mirror)).damaged).toEqual([]);
    bytes[0] = (bytes[0] as number) ^ 1;
    await writeFile(path.join(mirror, mirrorFilePath(hex)), bytes);
    expect((await verifyMirror(mirror)).damaged.map((d) => d.sha256)).toEqual([hex]);
  });
});

describe('one usage-error path: the in-process commands answer a mistake as the CLI layer does', () => {
  it('an unknown option: the same line and usage, exit 2, from every entry point', async () => {
    const io = () => {
      const err: string[] = [];
      const out: string[] = [];
      return { err, out, io: { err: (t: string) => err.push(t), out: (t: string) => out.push(t), tty: false, env: {} } satisfies CliIo };
    };
    const entries: Array<[string, (argv: string[], io: CliIo) => Promise<number>]> = [
      ['get', getCommand],
      ['verify-cache', verifyCacheCommand],
      ['mirror pull', mirrorPull],
      ['mirror verify', mirrorVerify],
      ['bundle create', bundleCreateCommand],
      ['bundle import', bundleImportCommand],
    ];
    for (const [name, entry] of entries) {
      const c = COMMANDS.find((x) => x.name === name);
      if (!c) throw new Error(name);
      const viaLayer = io();
      const viaEntry = io();
      expect(await runCommand(c, ['--no-such-option'], viaLayer.io)).toBe(2);
      expect(await entry(['--no-such-option'], viaEntry.io), name).toBe(2);
      expect(viaEntry.err.join(''), name).toBe(viaLayer.err.join(''));
      expect(viaEntry.err.join('').split('\n')[0]).toBe(`hub ${name}: unknown option --no-such-option`);
    }
  });
});

describe('one hostOf: the agent brief and the registry section write the same host', () => {
  it('ollama pull names the host of the origin the client used, without its scheme', async () => {
    const model: BuildModelInput = {
      id: 'synthetic-org/host-rule-GGUF',
      revision: 'c'.repeat(40),
      license: null,
      files: [{ path: 'm-Q4_K_M.gguf', size: 1000, sha256: 'd'.repeat(64) }],
      sources: [{ source: 'mirror-a', type: 'http' }],
    };
    const t = await createComposedTestHub({ models: [model] });
    const origin = 'https://hub.example:8443';
    const brief = (await request(t.hub, `${origin}/agent.md`)).text;
    const section = (await request(t.hub, `${origin}/registry`, { headers: { accept: 'application/json' } })).json() as {
      one_line?: string;
    };
    expect(brief).toContain('ollama pull --insecure hub.example:8443/');
    expect(JSON.stringify(section)).toContain('ollama pull --insecure hub.example:8443/');
  });
});

describe('one "append the day and switch current": the builder and bundle import', () => {
  const model = (rev: string): BuildModelInput => ({
    id: 'synthetic-org/day-rule',
    revision: rev.repeat(40),
    license: null,
    files: [{ path: 'config.json', size: 3, sha256: rev.repeat(64) }],
    sources: [{ source: 'mirror-a', type: 'http' }],
  });
  /** What a data folder's refs say after a day was committed: current, each day's leaf in the log, the log's faults. */
  async function committed(dir: string) {
    const store = new FsObjectStore(dir);
    const archive = JSON.parse((await store.readRef('archive')) as string) as Archive;
    return {
      current: (await store.readRef('current'))?.trim(),
      days: archive.days.map((d) => ({ date: d.date, index: d.index, leaf: d.leaf })),
      size: (await readLogState(store)).size,
      faults: await checkLogStore(store, archive.days),
    };
  }

  it('build two days, bundle them, import into an empty folder: both commit the same archive, log and current', async () => {
    const built = await tmp('hub-rule-day-');
    const store = new FsObjectStore(built);
    await buildIndex(store, { date: '2026-03-01', models: [model('a')] });
    await buildIndex(store, { date: '2026-03-02', models: [model('b')] });
    const fromBuilder = await committed(built);
    expect(fromBuilder.faults).toEqual([]);
    expect(fromBuilder.days.map((d) => d.leaf)).toEqual([1, 0]);
    expect(fromBuilder.current).toBe(fromBuilder.days[0]?.index);

    // The bundle as `hub bundle create` writes it, from the hub serving the built folder.
    const { startServer } = await import('../src/server.js');
    const running = await startServer({ dataDir: built, port: 0, config: { demo: false, logLevel: 'silent' }, demoMirror: false });
    const out = path.join(await tmp('hub-rule-bundle-'), 'b');
    try {
      const { nodeGetBytes, nodeHasher } = await import('@hub/client/node');
      await bundleCreate({ hub: running.url, hasher: nodeHasher, getBytes: nodeGetBytes }, out, []);
    } finally {
      await running.close();
    }
    const imported = await tmp('hub-rule-import-');
    await bundleImport(out, imported);
    const fromImport = await committed(imported);
    expect(fromImport).toEqual(fromBuilder);
    // A second import of the same bundle appends nothing twice.
    await bundleImport(out, imported);
    expect(await committed(imported)).toEqual(fromBuilder);
    expect(JSON.parse(await readFile(path.join(out, 'bundle.json'), 'utf8')).format).toBe('model-hub.bundle/v2');
  });
});

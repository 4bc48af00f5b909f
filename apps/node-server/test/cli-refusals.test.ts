/**
 * Issue 37, the CLI side: what an operator meets after a typo, run as the operator runs it (the built binary in a
 * child process). Every refusal is one line (plus the usage where it helps), exit 2, no stack trace, and comes before
 * anything listens or writes; a dead or wrong hub is never a clean pass; Ctrl-C says how to resume.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostPolicyFrom } from '@hub/core-index';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/server.js';
import { type CliRun, runCli as hub } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const tmp = tempDirs(afterAll);

const STACK = /\n\s+at |node:internal|TypeError|^Error:|"level":/m;

/** One line naming the mistake (and, for a usage mistake, the usage after it), exit 2, no stack trace. */
function refused(r: CliRun, first: RegExp, usage = false): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines[0]).toMatch(first);
  if (!usage) expect(lines).toHaveLength(1);
  else expect(lines[1]).toMatch(/^Usage: hub /);
  expect(r.stderr).not.toMatch(STACK);
}

/** A tree `{owner}/{name}/…` of one SYNTHETIC model. */
async function tree(): Promise<string> {
  const root = await tmp('hub-refuse-tree-');
  await mkdir(path.join(root, 'acme', 'widget'), { recursive: true });
  await writeFile(path.join(root, 'acme', 'widget', 'config.json'), '{"synthetic":true}\n');
  return root;
}

const SOURCE = 'm=http://mirror.test/{id}/{path}';

describe
  .skipIf(!existsSync(CLI))
  .concurrent('the CLI refuses mistakes in one line, before anything listens or writes (needs the built CLI)', () => {
    it('hub index build --date: a day that does not exist and a future day are refused, and nothing is written', async () => {
      const from = await tree();
      const data = path.join(await tmp('hub-refuse-'), 'data');
      const bad = await hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--date', '2026-13-45']);
      refused(bad, /^hub index build: --date 2026-13-45 is not a day of the calendar$/, true);
      const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
      const later = await hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--date', future]);
      refused(later, /^hub index build: --date \d{4}-\d{2}-\d{2} is after today/, true);
      const upstream = await hub(['index', 'build', '--upstream', 'http://127.0.0.1:9', '--data', data, '--date', '2026-02-30']);
      refused(upstream, /is not a day of the calendar/, true);
      expect(existsSync(data)).toBe(false);
    });

    it('hub index build: --from-dir one level too deep, and a --source template that names no file, are refused', async () => {
      const from = await tree();
      const data = path.join(await tmp('hub-refuse-'), 'data');
      const deep = await hub(['index', 'build', '--from-dir', path.join(from, 'acme'), '--source', SOURCE, '--data', data]);
      refused(deep, /^hub index build: --from-dir: .*config\.json lies where model folders belong.*one level too deep/);
      const noPlaceholder = await hub(['index', 'build', '--from-dir', from, '--source', 'm=http://mirror.test/files', '--data', data]);
      refused(noPlaceholder, /^hub index build: --source m=http:\/\/mirror\.test\/files: the template names no file/, true);
      const unknown = await hub(['index', 'build', '--from-dir', from, '--source', 'm=http://mirror.test/{file}', '--data', data]);
      refused(unknown, /unknown placeholder \{file\}/, true);
      expect(existsSync(data)).toBe(false);
    });

    it('hub index build --changed: without --from-dir, a feed that cannot be read, a path outside the tree, no rebuild cache', async () => {
      const from = await tree();
      const data = path.join(await tmp('hub-refuse-'), 'data');
      const feed = path.join(await tmp('hub-refuse-feed-'), 'changed.txt');
      await writeFile(feed, 'acme/widget/config.json\n../outside/file\n');
      const upstream = await hub(['index', 'build', '--upstream', 'http://127.0.0.1:9', '--changed', feed, '--data', data]);
      refused(upstream, /^hub index build: --changed goes with --from-dir$/, true);
      const missing = await hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--changed', `${feed}.none`]);
      refused(missing, /^hub index build: --changed: cannot read .*changed\.txt\.none: ENOENT$/);
      const outside = await hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--changed', feed]);
      refused(outside, /^hub index build: --changed: line 2 of the change feed is not a path under /);
      expect(existsSync(data)).toBe(false);
      await writeFile(feed, 'acme/widget/config.json\n');
      const first = await hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--changed', feed]);
      refused(
        first,
        /^hub index build: --changed: a change feed needs the rebuild cache of an earlier build of .*: build once without it$/,
      );
      // after a build without it, the feed is taken (from stdin with -, as a pipe gives it)
      expect((await hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data])).code).toBe(0);
      const fed = await hub(
        ['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--changed', '-'],
        {},
        'acme/widget\n',
      );
      expect(fed.code, fed.stderr).toBe(0);
      expect(JSON.parse(fed.stdout)).toMatchObject({ models: 1, files: 1 });
    }, 60_000);

    it('read-only commands refuse a data folder that does not exist, and do not create it', async () => {
      const data = path.join(await tmp('hub-refuse-'), 'typo');
      refused(await hub(['probe', '--data', data]), /^hub probe: no data folder at .*typo/);
      refused(await hub(['index', 'verify', '--data', data]), /^hub index verify: no data folder at .*typo/);
      expect(existsSync(data)).toBe(false);
      refused(
        await hub(['index', 'verify', '--data', data, '--threads', 'two']),
        /^hub index verify: --threads two: a whole number from 0 to 256/,
        true,
      );
      refused(
        await hub(['index', 'answers', '--data', data, '--threads', '1.5']),
        /^hub index answers: --threads 1.5: a whole number from 0 to 256/,
        true,
      );
    });

    it('config mistakes: a wrong type, an unknown key (named with the key meant), an order naming no source, a log level', async () => {
      const dir = await tmp('hub-refuse-');
      const data = path.join(dir, 'data');
      const port = String(await freePort());
      const config = async (body: unknown) => {
        const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.json`);
        await writeFile(file, JSON.stringify(body));
        return file;
      };
      const serve = async (body: unknown, env: Record<string, string> = {}) =>
        hub(['serve', '--data', data, '--port', port, '--config', await config(body)], env);
      refused(await serve({ sources: { name: 'x' } }), /sources must be a list of sources/);
      refused(await serve({ trustproxy: true }), /unknown key "trustproxy" \(did you mean "trustProxy"\?\)/);
      refused(await serve({ airGaped: true }), /unknown key "airGaped" \(did you mean "airGapped"\?\)/);
      refused(await serve({ signingkey: '/k' }), /did you mean "signingKey"/);
      refused(await serve({ metricToken: 'x'.repeat(20) }), /did you mean "metricsToken"/);
      refused(await serve({ trustProxy: 'yes' }), /trustProxy must be true or false/);
      refused(await serve({ order: ['nonexistent'] }), /order names "nonexistent", not a source of this hub/);
      refused(await serve({}, { HUB_LOG_LEVEL: 'loud' }), /^hub serve: HUB_LOG_LEVEL=loud: must be one of fatal, error/);
      refused(await serve({ logLevel: 'loud' }), /logLevel must be one of/);
      refused(await serve({ leaseSeconds: 604800 }), /leaseSeconds must be a number of seconds from 0\.1 to 3600/);
      refused(await serve({ indexStore: 'fast' }), /indexStore must be one of auto, memory, paged/);
      refused(await serve({}, { HUB_INDEX_STORE: 'fast' }), /HUB_INDEX_STORE must be one of auto, memory, paged/);
      refused(await serve({ cacheMegabytes: -1 }), /cacheMegabytes must be a positive number/);
      refused(await serve({}, { HUB_CACHE_MB: 'lots' }), /HUB_CACHE_MB must be a positive number of megabytes/);
      // --refresh is checked before the hub starts: nothing listened, nothing was seeded.
      refused(
        await hub(['serve', '--data', data, '--port', port, '--refresh', 'weekly']),
        /^hub serve: --refresh weekly: expected daily/,
        true,
      );
      expect(existsSync(data)).toBe(false);
    });

    it('a bad baseUrl is refused with the host-settings rule of both hosts (core-index hostPolicyFrom; the edge: apps/edge/test)', async () => {
      const bad = 'ftp://models.example.org';
      let expected = '';
      try {
        hostPolicyFrom({ listenHost: '127.0.0.1', baseUrl: bad });
      } catch (e) {
        expected = (e as Error).message;
      }
      expect(expected).not.toBe('');
      const dir = await tmp('hub-refuse-');
      const file = path.join(dir, 'hub.json');
      await writeFile(file, JSON.stringify({ baseUrl: bad }));
      const r = await hub(['serve', '--data', path.join(dir, 'data'), '--port', String(await freePort()), '--config', file]);
      refused(r, /^hub serve: /);
      expect(r.stderr).toContain(expected);
      expect(existsSync(path.join(dir, 'data'))).toBe(false);
    });

    it('a busy port and an address this machine lacks: one line, exit 2 (a demo folder too)', async () => {
      const busy = net.createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const port = String((busy.address() as net.AddressInfo).port);
      try {
        refused(
          await hub(['serve', '--data', await tmp('hub-refuse-'), '--port', port]),
          /^hub serve: Cannot listen on 127\.0\.0\.1:\d+ \(the port is in use\)/,
        );
      } finally {
        busy.close();
      }
      // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it. An empty folder gets the demo index and its mirror.
      const lacking = await hub(['serve', '--data', await tmp('hub-refuse-'), '--host', '192.0.2.1', '--port', String(await freePort())]);
      refused(lacking, /^hub serve: Cannot listen on 192\.0\.2\.1:\d+ \(this machine has no such address\)/);
    });

    it('hub verify-cache against a dead hub or a server that is no hub fails (exit 1), never a clean pass', async () => {
      const cache = await tmp('hub-refuse-cache-');
      const snap = path.join(cache, 'models--acme--widget', 'snapshots', 'a'.repeat(40));
      await mkdir(snap, { recursive: true });
      await writeFile(path.join(snap, 'config.json'), '{}');
      const dead = await hub(['verify-cache', cache, '--hub', `http://127.0.0.1:${await freePort()}`]);
      expect(dead.code).toBe(1);
      expect(dead.stderr).toMatch(/does not answer \(ECONNREFUSED\); nothing was checked/);
      expect(dead.stdout).not.toContain('unknown-revision');
      const other = http.createServer((_req, res) => res.writeHead(404).end('not found'));
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      try {
        const wrong = await hub(['verify-cache', cache, '--hub', `http://127.0.0.1:${(other.address() as net.AddressInfo).port}`]);
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toMatch(/is not a model hub/);
      } finally {
        other.close();
      }
    });

    it('network failures of mirror pull and bundle create name the URL', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const pull = await hub(['mirror', 'pull', await tmp('hub-refuse-m-'), '--top', '1', '--hub', url]);
      expect(pull.code).toBe(1);
      expect(pull.stderr.split('\n')[0]).toMatch(new RegExp(`^hub mirror pull: ${url}/\\S+: no answer \\(ECONNREFUSED\\)`));
      const bundle = await hub(['bundle', 'create', path.join(await tmp('hub-refuse-b-'), 'out'), '--top', '1', '--hub', url]);
      expect(bundle.code).toBe(1);
      expect(bundle.stderr.split('\n')[0]).toMatch(new RegExp(`^hub bundle create: ${url}/\\S+: no answer \\(ECONNREFUSED\\)`));
    });

    it('Ctrl-C during a mirror pull says the work is kept and how to resume (exit 130)', async () => {
      // A hub that accepts the connection and never answers: the pull waits until it is interrupted.
      const silent = net.createServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const dir = await tmp('hub-refuse-m-');
      const child = spawn(process.execPath, [
        CLI,
        'mirror',
        'pull',
        dir,
        '--top',
        '1',
        '--hub',
        `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
      ]);
      let stderr = '';
      child.stderr.on('data', (c) => {
        stderr += String(c);
      });
      await new Promise<void>((resolve) => silent.once('connection', () => resolve()));
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      silent.close();
      expect(code).toBe(130);
      expect(stderr).toMatch(/hub mirror pull: interrupted\. .*run the same command again to resume/);
      expect(await readdir(dir)).toEqual([]);
    });

    it('hub mirror pull --help says what --max-bytes does: a model past the total is skipped, a smaller one after it taken', async () => {
      const r = await hub(['mirror', 'pull', '--help']);
      expect(r.stdout.replace(/\s+/g, ' ')).toContain('Skip a model past this total');
    });
  });

describe.skipIf(!existsSync(CLI))(
  'hub verify-cache checks a cached revision the hub no longer serves against its archive (needs the built CLI)',
  () => {
    it('a day-1 revision cached before the day-2 build is checked against the archived model object, not called unknown', async () => {
      const from = await tree();
      const data = await tmp('hub-refuse-data-');
      const build = (date: string) => hub(['index', 'build', '--from-dir', from, '--source', SOURCE, '--data', data, '--date', date]);
      const revisionServed = async () => {
        const running = await startServer({ dataDir: data, port: 0, config: { demo: false, logLevel: 'silent' } });
        try {
          return { running, sha: ((await (await fetch(`${running.url}/api/models/acme/widget`)).json()) as { sha: string }).sha };
        } catch (e) {
          await running.close();
          throw e;
        }
      };
      expect((await build('2026-01-01')).code).toBe(0);
      const day1 = await revisionServed();
      await day1.running.close();
      // The cache holds day 1's revision: the same bytes the model had then.
      const cache = await tmp('hub-refuse-cache-');
      const snap = path.join(cache, 'models--acme--widget', 'snapshots', day1.sha);
      await mkdir(snap, { recursive: true });
      await writeFile(path.join(snap, 'config.json'), '{"synthetic":true}\n');
      // Day 2: the model changed upstream, so the hub serves a new revision.
      await writeFile(path.join(from, 'acme', 'widget', 'config.json'), '{"synthetic":2}\n');
      expect((await build('2026-01-02')).code).toBe(0);
      const day2 = await revisionServed();
      try {
        expect(day2.sha).not.toBe(day1.sha);
        const clean = await hub(['verify-cache', cache, '--hub', day2.running.url]);
        expect(clean.stderr).toBe('');
        expect(clean.code).toBe(0);
        expect(
          clean.stdout
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l)),
        ).toEqual([expect.objectContaining({ event: 'match', model: 'acme/widget', revision: day1.sha, file: 'config.json' })]);
        // A byte changed in the cached file is a mismatch against the archived SHA-256.
        await writeFile(path.join(snap, 'config.json'), '{"synthetic":false}\n');
        const broken = await hub(['verify-cache', cache, '--hub', day2.running.url]);
        expect(broken.code).toBe(1);
        expect(JSON.parse(broken.stdout.trim())).toMatchObject({ event: 'mismatch', revision: day1.sha, file: 'config.json' });
      } finally {
        await day2.running.close();
      }
    });
  },
);

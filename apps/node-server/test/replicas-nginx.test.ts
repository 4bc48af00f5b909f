import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestIdentityProvider, type TestIdentityProvider } from '@hub/account/testing';
import { freePort, tempDirs } from '@hub/node-toolkit/testing';
import { leaseHolder } from '@hub/objects/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseFile, REFRESH_LEASE } from '../src/replicas.js';
import { CLI, type HubProcess, hubProcesses } from './hub-process.js';
import { NGINX, startNginx, type TestNginx } from './nginx.js';
import { postgresBin, startPostgres, type TestPostgres } from './postgres.js';

/**
 * Issue 41, the whole picture: a real PostgreSQL and two `hub serve --refresh daily` processes (the built CLI) on one
 * data folder behind a real nginx (Debian's nginx-light, its own config, prefix and pid in a temp folder, stopped by
 * its pid) whose `upstream` block retries a failed request on the other hub (`proxy_next_upstream`). SYNTHETIC
 * accounts and model ids.
 */
const ready = existsSync(NGINX) && existsSync(CLI) && postgresBin() !== undefined;
const why = [!existsSync(NGINX) && 'nginx', !existsSync(CLI) && 'the built CLI', !postgresBin() && 'PostgreSQL'].filter(Boolean).join(', ');
const tmp = tempDirs(afterAll);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_SECONDS = 2;
const TOKEN = 'synthetic-replicas-publisher-token';
const run = promisify(execFile);

type Hub = HubProcess;
const hubProcess = hubProcesses(afterAll);

let pg: TestPostgres;
let idp: TestIdentityProvider;
let data: string;
let hubs: Hub[] = [];
let nginx: TestNginx | undefined;
let front: string;

function startHub(config: string): Promise<Hub> {
  return hubProcess({ args: ['--refresh', 'daily', '--data', data, '--config', config] });
}

/** One GET through a keep-alive agent (as a client behind nginx would), answering the status or the error. */
function get(agent: http.Agent, url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (e) => resolve(e.message));
    });
    req.on('error', (e) => resolve(e.message));
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
  });
}

describe.skipIf(!ready)(
  `PostgreSQL + two hub serve on one data folder behind nginx (needs nginx, PostgreSQL and the built CLI${ready ? '' : `; missing: ${why}`})`,
  () => {
    beforeAll(async () => {
      pg = await startPostgres();
      idp = await createTestIdentityProvider({ issuer: 'https://id.example.test', audience: 'hub-site' });
      data = await tmp('hub-replicas-nginx-');
      const config = path.join(data, 'hub.json');
      await writeFile(
        config,
        JSON.stringify({
          database: pg.url,
          leaseSeconds: LEASE_SECONDS,
          demoMirrorPort: 0,
          publisherTokens: [TOKEN],
          registryTokens: [TOKEN],
          // Above 50 for the race; 80 writes of one account across both hubs then find the limit counted once.
          account: {
            publicKey: idp.publicKeyPem,
            issuer: 'https://id.example.test',
            audience: 'hub-site',
            writes: { burst: 60, perSecond: 0.01 },
          },
        }),
      );
      // The first seeds the empty folder and migrates the database; the second finds both done.
      hubs = [await startHub(config)];
      hubs.push(await startHub(config));
      const port = await freePort();
      front = `http://127.0.0.1:${port}`;
      const dir = await tmp('hub-replicas-nginx-conf-');
      nginx = await startNginx(
        dir,
        `
  upstream hub {
    server 127.0.0.1:${hubs[0]?.port} max_fails=1 fail_timeout=5s;
    server 127.0.0.1:${hubs[1]?.port} max_fails=1 fail_timeout=5s;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://hub;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
      proxy_redirect off;
    }
  }
`,
        [port],
        256,
      );
    }, 120_000);

    afterAll(async () => {
      await nginx?.stop();
      await Promise.all(hubs.map((h) => h.stop()));
      await pg?.stop();
    });

    const auth = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

    it('a saved list written through one hub is read through the other, and the rows are in PostgreSQL', async () => {
      const [a, b] = hubs as [Hub, Hub];
      const token = await idp.sign({ sub: 'did:plc:synthetic-replica-reader' });
      const put = await fetch(`${a.url}/api/account/saved`, {
        method: 'PUT',
        headers: auth(token),
        body: JSON.stringify({ saved: ['demo/tiny-bert-synthetic', 'someone/else'] }),
      });
      expect(put.status).toBe(200);
      const read = await fetch(`${b.url}/api/account/saved`, { headers: auth(token) });
      expect(await read.json()).toEqual({ saved: ['demo/tiny-bert-synthetic', 'someone/else'] });
      const rows = await pg.query('SELECT model, position FROM saved WHERE did = $1 ORDER BY position', [
        'did:plc:synthetic-replica-reader',
      ]);
      expect(rows).toEqual([
        { model: 'demo/tiny-bert-synthetic', position: 0 },
        { model: 'someone/else', position: 1 },
      ]);
    });

    it('50 concurrent requests for one model across both hubs: one 201 and 49 409', async () => {
      const token = await idp.sign({ sub: 'did:plc:synthetic-replica-racer' });
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const r = await fetch(`${hubs[i % 2]?.url}/api/account/request`, {
            method: 'POST',
            headers: auth(token),
            body: JSON.stringify({ model: 'race/replicated-model' }),
          });
          await r.arrayBuffer();
          return r.status;
        }),
      );
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
      expect(await pg.query('SELECT model FROM requests WHERE did = $1', ['did:plc:synthetic-replica-racer'])).toEqual([
        { model: 'race/replicated-model' },
      ]);
    });

    it('the write limit (60) counts the writes of both hubs together: 80 writes, 40 through each, 20 refused', async () => {
      const token = await idp.sign({ sub: 'did:plc:synthetic-replica-writer' });
      const statuses = await Promise.all(
        Array.from({ length: 80 }, async (_, i) => {
          const r = await fetch(`${hubs[i % 2]?.url}/api/account/request`, {
            method: 'POST',
            headers: auth(token),
            body: JSON.stringify({ model: `limit/model-${i}` }),
          });
          await r.arrayBuffer();
          return r.status;
        }),
      );
      // Each hub alone saw 40 writes, under its limit of 60: a limit per process would refuse none.
      expect(statuses.filter((s) => s === 201)).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    });

    it('a concurrent publish and push storm against both processes loses nothing, and hub index verify passes', async () => {
      const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
      const storm = Array.from({ length: 60 }, async (_, i) => {
        const hub = hubs[i % 2] as Hub;
        const bytes = new TextEncoder().encode(`SYNTHETIC replicas storm item ${i}`);
        if (i % 3 === 0) {
          const r = await fetch(`${hub.url}/api/v1/objects`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'x-object-kind': 'synthetic.test', 'content-type': 'application/octet-stream' },
            body: bytes,
          });
          expect(r.status).toBe(201);
          return { i, check: `/api/v1/objects/${((await r.json()) as { id: string }).id}` };
        }
        const digest = `sha256:${sha256(bytes)}`;
        const r = await fetch(`${hub.url}/v2/hub/buckets/storm-${i}/blobs/uploads/?digest=${digest}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        expect(r.status).toBe(201);
        return { i, check: `/v2/hub/buckets/storm-${i}/blobs/${digest}` };
      });
      const written = await Promise.all(storm);
      for (const hub of hubs)
        for (const { check } of written)
          expect((await fetch(`${hub.url}${check}`, { method: 'HEAD' })).status, `${check} via ${hub.url}`).toBe(200);
      const verify = await run(process.execPath, [CLI, 'index', 'verify', '--data', data]);
      expect(verify.stdout + verify.stderr).toMatch(/\b0 faults/);
    }, 60_000);

    it('kill -9 of one hub under a steady read load through nginx: no failed read after the first second, and its refresh lease is taken over within one interval', async () => {
      const lease = leaseFile(data, REFRESH_LEASE);
      const holderPid = (await leaseHolder(lease))?.pid;
      const victim = hubs.find((h) => h.child.pid === holderPid);
      const survivor = hubs.find((h) => h !== victim);
      expect(victim && survivor).toBeTruthy();
      if (!victim || !survivor) return;

      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const results: Array<{ at: number; status: number | string }> = [];
      let running = true;
      const load = Array.from({ length: 4 }, async () => {
        while (running) {
          const status = await get(agent, `${front}/api/models/demo/tiny-bert-synthetic`);
          results.push({ at: Date.now(), status });
        }
      });
      await sleep(1000);
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      let takenAt: number | undefined;
      while (Date.now() - killedAt < 4 * LEASE_SECONDS * 1000) {
        if ((await leaseHolder(lease))?.pid === survivor.child.pid) {
          takenAt = Date.now();
          break;
        }
        await sleep(25);
      }
      await sleep(3000);
      running = false;
      await Promise.all(load);
      agent.destroy();

      const after = results.filter((r) => r.at >= killedAt + 1000);
      const failedAfter = after.filter((r) => r.status !== 200);
      const failedAll = results.filter((r) => r.status !== 200);
      console.log(
        `replicas: ${results.length} reads, ${failedAll.length} failed in all, ${after.length} after the first second past the kill (${failedAfter.length} failed); refresh lease taken over ${takenAt ? takenAt - killedAt : 'never'} ms after the kill`,
      );
      expect(after.length).toBeGreaterThan(50);
      expect(failedAfter).toEqual([]);
      // Stronger than the issue asks: with proxy_next_upstream not one read failed, not even at the kill (without it,
      // the reads in flight on the killed hub fail: 4 of 9,724 in one run, all in the first second).
      expect(failedAll).toEqual([]);
      // Taken over within one lease interval of the holder's last heartbeat (which was before the kill).
      expect(takenAt).toBeDefined();
      expect((takenAt ?? Number.POSITIVE_INFINITY) - killedAt).toBeLessThanOrEqual(LEASE_SECONDS * 1000 + 500);
      expect(survivor.out.join('')).toContain('this process runs the index builds');
      // The survivor serves, directly and through nginx.
      expect((await fetch(`${survivor.url}/api/models/demo/tiny-bert-synthetic`)).status).toBe(200);
      expect((await fetch(`${front}/api/models/demo/tiny-bert-synthetic`)).status).toBe(200);
    }, 60_000);
  },
);

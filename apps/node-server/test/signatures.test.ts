import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ModelObject, readArchive } from '@hub/core-index';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { FakeUpstream, type FakeUpstreamData } from '@hub/upstream/testing';
import { listFiles, pathsInfo } from '@huggingface/hub';
import { http as mswHttp } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import { bundleCreateCommand, bundleImportCommand } from '../src/cli-bundle.js';
import { getCommand } from '../src/cli-get.js';
import { ConfigError, type HubConfigFile } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import type { MirrorIo } from '../src/pull-choice.js';
import { type RunningHub, startServer } from '../src/server.js';
import { checkedSettings } from '../src/settings-check.js';
import { buildFromUpstream } from '../src/upstream-build.js';

/**
 * A repo's own model.sig, checked by the index run from the index's SHA-256 alone, and the host's scan verdicts, then
 * the serving policy on every dialect, over real HTTP. The signed models are the reference implementation's real
 * keyless test model (fixtures/model-signing/README.md: signed by an IBM identity through IBM's OIDC issuer, logged
 * in the public Rekor), placed by the fake host under SYNTHETIC ids; the tampered, extended and scanned variants and
 * every scan verdict are SYNTHETIC.
 */

const FIX = fileURLToPath(new URL('../../../fixtures/model-signing/model-transparency/v1.1.0-sigstore/', import.meta.url));
const REAL: Record<string, Uint8Array> = Object.fromEntries(readdirSync(FIX).map((f) => [f, readFileSync(path.join(FIX, f))]));
const IDENTITY = 'stefanb@us.ibm.com';
const ISSUER = 'https://sigstore.verify.ibm.com/oauth2';
const SIGNED = 'stefanb/signed-model';
const COPY = 'copycat/signed-model';
const TAMPERED = 'tampered/signed-model';
const EXTRA = 'extra/signed-model';
const SCANNED = 'scanned/pickle-model';
const enc = new TextEncoder();
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
// SYNTHETIC: a pickle "weight" file and the host's verdict on it (the shape huggingface_hub reads).
const PICKLE = enc.encode('SYNTHETIC pickle bytes, not a real model\n');
const PICKLE_STATUS = {
  status: 'unsafe',
  avScan: { status: 'safe' },
  pickleImportScan: { status: 'unsafe', imports: [{ module: 'os', name: 'system', safety: 'dangerous' }] },
};

const POLICY: HubConfigFile['policy'] = {
  refuseScanLevels: ['unsafe', 'suspicious'],
  refuseFailedSignatures: true,
  requireSignature: [
    // SYNTHETIC identity: the namespace's own release identity, which a copied IBM signature is not
    { models: 'copycat/*', identity: 'release@copycat.example', issuer: 'https://accounts.google.com' },
    { models: 'stefanb/*', identity: IDENTITY, issuer: ISSUER },
  ],
};

/** The public host's source pointed at the fake host (mocked by msw in this process). */
const FAKE_SOURCE: HubConfigFile['sources'] = [{ name: 'huggingface.co', url: 'https://hf.test/{id}/resolve/{revision}/{path}' }];

const data: FakeUpstreamData = modelHostFixtures();
const fake = new FakeUpstream(data, { base: 'https://hf.test' });
const msw = setupServer(mswHttp.all('https://hf.test/*', ({ request }) => fake.handle(request)));
const tmp = tempDirs(afterAll);
const quiet = createLogger({ level: 'silent' });
const started: RunningHub[] = [];
let hub: RunningHub;
let dataDir: string;

function placeModels(scanDone: boolean) {
  fake.place(SIGNED, REAL);
  fake.place(COPY, REAL);
  fake.place(TAMPERED, { ...REAL, 'signme-2': enc.encode('SYNTHETIC other bytes\n') });
  fake.place(EXTRA, { ...REAL, 'extra.bin': enc.encode('SYNTHETIC unsigned file\n') });
  fake.place(
    SCANNED,
    { 'config.json': enc.encode('{"_note":"SYNTHETIC"}\n'), 'model.bin': PICKLE },
    scanDone
      ? { scansDone: true, filesWithIssues: [{ path: 'model.bin', level: 'unsafe' }], files: { 'model.bin': PICKLE_STATUS } }
      : { scansDone: false, filesWithIssues: [] },
  );
}

const build = (dir: string, date: string) =>
  buildFromUpstream({ dataDir: dir, upstream: 'https://hf.test', modelscope: false, top: 8, date, log: quiet });

beforeAll(async () => {
  msw.listen({ onUnhandledRequest: 'bypass' });
  placeModels(true);
  dataDir = await tmp('sign-');
  await build(dataDir, '2026-11-26');
  hub = await startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    logger: quiet,
    config: { demo: false, policy: POLICY, sources: FAKE_SOURCE },
  });
  started.push(hub);
});
afterAll(async () => {
  for (const h of started) await h.close();
  msw.close();
});

const get = (p: string, init: RequestInit = {}) => fetch(`${hub.url}${p}`, { redirect: 'manual', ...init });
const info = async (id: string) => (await (await get(`/api/models/${id}`)).json()) as { svc: { signature?: Record<string, unknown> } };

describe('the index run checks each model.sig from the index, without the files', () => {
  it('a real bundle over a tree that lists its files: verified, with identity, issuer and time', async () => {
    const sig = (await info(SIGNED)).svc.signature;
    expect(sig).toMatchObject({
      status: 'verified',
      method: 'sigstore',
      identity: IDENTITY,
      issuer: ISSUER,
      covered: 2,
      bundle: 'model.sig',
    });
    expect(sig?.signed_at).toMatch(/^2025-/);
  });

  it('the model page and MCP hub_repo_details show it', async () => {
    const page = await (await fetch(`${hub.url}/${SIGNED}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(`<dt>Signature</dt><dd>verified by ${IDENTITY} (${ISSUER})`);
    const res = await fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'hub_repo_details', arguments: { repo_ids: [SIGNED] } },
      }),
    });
    const text = ((await res.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]?.text;
    expect(text).toContain(`model.sig: verified by ${IDENTITY} (${ISSUER})`);
  });

  it('one mismatched SHA-256 is failed with its path; an unlisted indexed file is incomplete with it', async () => {
    expect((await info(TAMPERED)).svc.signature).toMatchObject({ status: 'failed', identity: IDENTITY, mismatched: ['signme-2'] });
    expect((await info(EXTRA)).svc.signature).toMatchObject({ status: 'incomplete', unsigned: ['extra.bin'], covered: 2 });
    expect((await info(SCANNED)).svc.signature).toBeUndefined();
  });

  it('the copy in another namespace verifies and names the original identity; ?signature=verified lists both', async () => {
    expect((await info(COPY)).svc.signature).toMatchObject({ status: 'verified', identity: IDENTITY, issuer: ISSUER });
    const rows = (await (await get('/api/models?signature=verified&limit=50')).json()) as Array<{ id: string }>;
    expect(rows.map((r) => r.id).sort()).toEqual([COPY, SIGNED]);
    const failed = (await (await get('/api/models?signature=failed')).json()) as Array<{ id: string }>;
    expect(failed.map((r) => r.id)).toEqual([TAMPERED]);
    expect((await get('/api/models?signature=maybe')).status).toBe(400);
  });
});

describe("the host's scan verdicts, in its shapes", () => {
  it('securityRepoStatus on model info with securityStatus=true (huggingface_hub model_info(securityStatus=True))', async () => {
    const res = (await (await get(`/api/models/${SCANNED}?securityStatus=true`)).json()) as Record<string, unknown>;
    expect(res.securityRepoStatus).toEqual({ scansDone: true, filesWithIssues: [{ path: 'model.bin', level: 'unsafe' }] });
    expect(((await (await get(`/api/models/${SCANNED}`)).json()) as Record<string, unknown>).securityRepoStatus).toBeUndefined();
  });

  it('securityFileStatus through @huggingface/hub pathsInfo and listFiles with expand', async () => {
    const infos = await pathsInfo({ repo: SCANNED, paths: ['model.bin', 'config.json'], expand: true, hubUrl: hub.url });
    const by = Object.fromEntries(infos.map((i) => [i.path, i.securityFileStatus]));
    expect(by['model.bin']).toEqual(PICKLE_STATUS);
    expect(by['config.json']).toEqual({ status: 'safe', avScan: null, pickleImportScan: null });
    const listed = [];
    for await (const f of listFiles({ repo: SCANNED, expand: true, hubUrl: hub.url })) listed.push(f);
    expect(listed.find((f) => f.path === 'model.bin')?.securityFileStatus).toEqual(PICKLE_STATUS);
  });
});

describe('the serving policy, on every dialect', () => {
  const refused = async (res: Response, rule: string, shape: 'hub' | 'oci' | 'text') => {
    expect(res.status).toBe(403);
    expect(res.headers.get('x-error-code')).toBe('PolicyRefused');
    expect(res.headers.get('location')).toBeNull();
    const body = await res.text();
    if (shape === 'hub') expect(JSON.parse(body).error).toContain(rule);
    if (shape === 'oci')
      expect(JSON.parse(body).errors[0]).toMatchObject({ code: 'PolicyRefused', message: expect.stringContaining(rule) });
  };

  it('an identity rule refuses the copied signature: resolve, OCI manifest and blob, SHA256SUMS', async () => {
    const rule = 'policy.requireSignature[0]';
    await refused(await get(`/${COPY}/resolve/main/signme-1`), rule, 'hub');
    await refused(await get(`/${COPY}/resolve/main/signme-1`, { method: 'HEAD' }), rule, 'text');
    await refused(await get(`/${COPY}/resolve/main/SHA256SUMS`), rule, 'hub');
    await refused(await get(`/v2/${COPY}/manifests/latest`), rule, 'oci');
    await refused(await get(`/v2/${COPY}/blobs/sha256:${sha(REAL['signme-1'] as Uint8Array)}`), rule, 'oci');
    // the listing still shows it, with its verdict
    expect((await get(`/api/models/${COPY}`)).status).toBe(200);
  });

  it('a failed signature refuses every file of the revision; a scan level refuses its file only', async () => {
    await refused(await get(`/${TAMPERED}/resolve/main/signme-1`), 'policy.refuseFailedSignatures', 'hub');
    await refused(await get(`/${SCANNED}/resolve/main/model.bin`), 'policy.refuseScanLevels', 'hub');
    await refused(await get(`/v2/${SCANNED}/blobs/sha256:${sha(PICKLE)}`), 'policy.refuseScanLevels', 'oci');
    const ok = await get(`/${SCANNED}/resolve/main/config.json`);
    expect(ok.status).toBe(302);
    // SHA256SUMS leaves the refused file out and names it in a comment sha256sum -c skips
    const sums = await (await get(`/${SCANNED}/resolve/main/SHA256SUMS`)).text();
    expect(sums).toContain('  config.json\n');
    expect(sums).not.toContain(`${sha(PICKLE)}  model.bin`);
    expect(sums).toContain('# policy.refuseScanLevels refuses "model.bin": not listed');
  });

  it('MCP get_download refuses with PolicyRefused and gives no URL', async () => {
    const call = async (model: string, p: string) =>
      (await (
        await fetch(`${hub.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'get_download', arguments: { model, path: p } },
          }),
        })
      ).json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
    const no = await call(COPY, 'signme-1');
    expect(no.result.isError).toBe(true);
    expect(no.result.content[0]?.text).toMatch(/^PolicyRefused: Refused by policy\.requireSignature\[0\]/);
    const yes = await call(SIGNED, 'signme-1');
    expect(yes.result.isError).toBeFalsy();
    expect(yes.result.content[0]?.text).toContain(sha(REAL['signme-1'] as Uint8Array));
  });

  it('a model the policy does not refuse is untouched: its signed files redirect as before', async () => {
    const res = await get(`/${SIGNED}/resolve/main/signme-1`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^https:\/\/hf\.test\//);
    expect(res.headers.get('x-linked-etag')).toBe(`"${sha(REAL['signme-1'] as Uint8Array)}"`);
    const other = fake.order.find((id) => !id.includes('signed') && !id.startsWith('scanned/')) as string;
    expect((await get(`/api/models/${other}`)).status).toBe(200);
  });
});

describe('hub get shows the verdict, and --require-signature refuses what is not verified', () => {
  const io = () => {
    const lines: string[] = [];
    return { lines, out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), tty: false, env: {} };
  };

  it('a verified model downloads, every byte checked; the verdict is the first event', async () => {
    const dir = await tmp('sign-get-');
    const o = io();
    expect(await getCommand([SIGNED, 'signme-*', '--hub', hub.url, '--to', dir, '--require-signature'], o), o.lines.join('\n')).toBe(0);
    const events = o.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e.event === 'signature')).toMatchObject({ status: 'verified', identity: IDENTITY, issuer: ISSUER });
    expect(readFileSync(path.join(dir, 'signme-1'))).toEqual(Buffer.from(REAL['signme-1'] as Uint8Array));
  });

  it('unsigned, failed and not-covered files are refused before any byte is fetched', async () => {
    for (const [args, why] of [
      [[SCANNED, 'config.json'], 'carries no model.sig'],
      [[TAMPERED], 'has a model.sig that failed verification'],
      [[EXTRA], 'has a model.sig that does not cover extra.bin'],
    ] as const) {
      const dir = await tmp('sign-get-');
      const o = io();
      expect(await getCommand([...args, '--hub', hub.url, '--to', dir, '--require-signature'], o)).toBe(1);
      expect(o.lines.at(-1)).toContain(`refused by --require-signature: ${args[0]} ${why}`);
      expect(readdirSync(dir)).toEqual([]);
    }
    // the signed files of the incomplete model are covered: those it fetches
    const o = io();
    expect(await getCommand([EXTRA, 'signme-1', '--hub', hub.url, '--to', await tmp('sign-get-'), '--require-signature'], o)).toBe(0);
  });
});

describe('verdicts are index facts', () => {
  it('a changed verdict on the same revision is a new model object chained to the old one', async () => {
    const dir = await tmp('sign-chain-');
    placeModels(false);
    await build(dir, '2026-11-26');
    placeModels(true);
    await build(dir, '2026-11-27');
    const store = new FsObjectStore(dir);
    const archive = await readArchive(store);
    const models = async (day: number) => {
      const catalog = JSON.parse(new TextDecoder().decode((await store.get(archive.days[day]?.index as never))?.bytes)) as {
        objects: Record<string, { model: string }>;
      };
      return catalog.objects;
    };
    const [day2, day1] = [await models(0), await models(1)];
    const obj = async (a: string) => JSON.parse(new TextDecoder().decode((await store.get(a as never))?.bytes)) as ModelObject;
    const before = await obj(day1[SCANNED]?.model as string);
    const after = await obj(day2[SCANNED]?.model as string);
    expect(before.scan).toEqual({ scansDone: false, filesWithIssues: [] });
    expect(after.scan?.filesWithIssues).toEqual([{ path: 'model.bin', level: 'unsafe' }]);
    expect(after.revision).toBe(before.revision);
    expect(after.prev).toBe(day1[SCANNED]?.model);
    // an unchanged verdict keeps its object
    expect(day2[SIGNED]?.model).toBe(day1[SIGNED]?.model);
    expect((await obj(day2[SIGNED]?.model as string)).signature?.status).toBe('verified');
  });

  it('a bundle carries them: the imported hub shows the verdicts and refuses by the same policy', async () => {
    const io = (): MirrorIo & { lines: string[] } => {
      const lines: string[] = [];
      return { lines, out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false, env: {} };
    };
    const out = path.join(await tmp('sign-bundle-'), 'day');
    const b = io();
    expect(await bundleCreateCommand([out, SIGNED, '--hub', hub.url], b), b.lines.join('\n')).toBe(0);
    const data2 = await tmp('sign-imported-');
    const i = io();
    expect(await bundleImportCommand([out, '--data', data2], i), i.lines.join('\n')).toBe(0);
    const imported = await startServer({
      dataDir: data2,
      port: 0,
      host: '127.0.0.1',
      logger: quiet,
      config: { policy: POLICY, sources: FAKE_SOURCE },
    });
    started.push(imported);
    const sig = (await (await fetch(`${imported.url}/api/models/${COPY}`)).json()).svc.signature;
    expect(sig).toMatchObject({ status: 'verified', identity: IDENTITY, issuer: ISSUER });
    const res = await fetch(`${imported.url}/${COPY}/resolve/main/signme-1`, { redirect: 'manual' });
    expect(res.status).toBe(403);
    expect(res.headers.get('x-error-code')).toBe('PolicyRefused');
    const scan = (await (await fetch(`${imported.url}/api/models/${SCANNED}?securityStatus=true`)).json()).securityRepoStatus;
    expect(scan.filesWithIssues).toEqual([{ path: 'model.bin', level: 'unsafe' }]);
  });
});

describe('the config keys are checked before anything listens', () => {
  it('a wrong policy or signing value is one ConfigError naming its key', async () => {
    const dir = await tmp('sign-config-');
    const cases: Array<[HubConfigFile | Record<string, unknown>, RegExp]> = [
      [{ policy: { refuseScanLevels: 'unsafe' } }, /^policy\.refuseScanLevels must be a list of scan levels/],
      [{ policy: { requireSignature: [{ models: 'ibm-granite/*' }] } }, /^policy\.requireSignature\[0\] needs models/],
      [{ signing: { trustedRoot: path.join(dir, 'missing.json') } }, /^signing\.trustedRoot: cannot read/],
      [{ signing: { keys: [{ name: 'k', publicKey: 'not a key -----BEGIN nothing' }] } }, /^signing\.keys\[0\] \(k\): not a public key/],
      [{ signing: { root: 'x' } }, /^signing\.root is not a signing key/],
    ];
    for (const [config, message] of cases) {
      const file = path.join(dir, 'config.json');
      writeFileSync(file, JSON.stringify(config));
      expect(() => checkedSettings({ config: file }, {})).toThrow(ConfigError);
      expect(() => checkedSettings({ config: file }, {})).toThrow(message);
    }
    writeFileSync(path.join(dir, 'ok.json'), JSON.stringify({ policy: POLICY, signing: {} }));
    expect(checkedSettings({ config: path.join(dir, 'ok.json') }, {}).policy).toEqual(POLICY);
  });
});

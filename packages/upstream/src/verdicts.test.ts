import { type Address, type CatalogObject, MemoryObjectStore, type ModelObject, type SignatureVerdict } from '@hub/core-index';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import type { Clock } from './client.js';
import { runUpstreamBuild } from './run.js';
import { FakeUpstream } from './testing/fake-upstream.js';
import type { UpstreamBuildOptions } from './types.js';

/**
 * The index run's verdicts (verdicts.ts) against the fake host: the model.sig handed to the injected verifier with
 * the index's files, the host's scan status and the flagged files' detail, what is asked again and what is kept.
 * The verifier here is a stub that records its calls (the real one: packages/model-signing, and the whole path with
 * real bundles in apps/node-server/test/signatures.test.ts). Models, files and verdicts are SYNTHETIC.
 */

const BASE = 'https://hf.test';
const enc = new TextEncoder();
const SIG = enc.encode('{"SYNTHETIC":"a model.sig stand-in"}\n');
let fake: FakeUpstream;
const server = setupServer(http.all('*', ({ request }) => fake.handle(request)));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

const clock = (): Clock => {
  let t = Date.parse('2026-11-26T09:00:00Z');
  return {
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  };
};

const calls: Array<{ bytes: string; files: string[]; at: string }> = [];
const verdict: SignatureVerdict = { status: 'verified', method: 'key', identity: 'stub', covered: 1 };
const options = (store: MemoryObjectStore, date: string, extra: Partial<UpstreamBuildOptions> = {}): UpstreamBuildOptions => ({
  objects: store,
  upstream: BASE,
  fetch: (...a) => fetch(...a),
  clock: clock(),
  top: 3,
  date,
  http: { random: () => 0.5, retries: 1 },
  verdicts: {
    verifySignature: (bytes, files, at) => {
      calls.push({ bytes: new TextDecoder().decode(bytes), files: files.map((f) => `${f.path}:${f.sha256.slice(0, 8)}`), at });
      return verdict;
    },
  },
  ...extra,
});

async function modelOf(store: MemoryObjectStore, catalog: string, id: string): Promise<ModelObject> {
  const read = async <T>(a: string) => JSON.parse(new TextDecoder().decode((await store.get(a as Address))?.bytes)) as T;
  const c = await read<CatalogObject>(catalog);
  return read<ModelObject>(c.objects[id]?.model as string);
}

describe('the index run asks for the verdicts of each changed revision', () => {
  it('hands model.sig and the index files to the verifier; reads the scan and the flagged files', async () => {
    fake = new FakeUpstream(modelHostFixtures(), { base: BASE });
    fake.place('synthetic/signed', { 'model.sig': SIG, 'weights.bin': enc.encode('w') });
    fake.place(
      'synthetic/flagged',
      { 'model.pkl': enc.encode('p') },
      {
        scansDone: true,
        filesWithIssues: [{ path: 'model.pkl', level: 'suspicious' }],
        files: {
          'model.pkl': { status: 'suspicious', avScan: { status: 'safe' }, pickleImportScan: { status: 'suspicious', imports: [] } },
        },
      },
    );
    calls.length = 0;
    const store = new MemoryObjectStore();
    const day1 = await runUpstreamBuild(options(store, '2026-11-26'));
    expect(calls).toEqual([
      {
        bytes: new TextDecoder().decode(SIG),
        files: expect.arrayContaining([expect.stringMatching(/^model\.sig:/), expect.stringMatching(/^weights\.bin:/)]),
        at: 'model.sig',
      },
    ]);
    const signed = await modelOf(store, day1.catalog, 'synthetic/signed');
    expect(signed.signature).toEqual(verdict);
    expect(signed.scan).toEqual({ scansDone: true, filesWithIssues: [] });
    const flagged = await modelOf(store, day1.catalog, 'synthetic/flagged');
    expect(flagged.signature).toBeUndefined();
    expect(flagged.scan).toEqual({
      scansDone: true,
      filesWithIssues: [{ path: 'model.pkl', level: 'suspicious' }],
      files: { 'model.pkl': { status: 'suspicious', avScan: { status: 'safe' }, pickleImportScan: { status: 'suspicious', imports: [] } } },
    });
    // paths-info is asked only for the model with an issue
    expect(fake.counts['paths-info']).toBe(1);

    // Day 2, nothing changed: no verifier call, no new object.
    calls.length = 0;
    const day2 = await runUpstreamBuild(options(store, '2026-11-27'));
    expect(calls).toEqual([]);
    expect((await modelOf(store, day2.catalog, 'synthetic/signed')).prev).toBeNull();
  });

  it('a scan status that cannot be read does not stop the run; a scan not done is asked again next time', async () => {
    fake = new FakeUpstream(modelHostFixtures(), { base: BASE });
    fake.place('synthetic/queued', { 'a.bin': enc.encode('a') }, { scansDone: false, filesWithIssues: [] });
    fake.inject(/\/api\/models\/synthetic\/queued\/revision\/[0-9a-f]{40}\?securityStatus=true/, [{ status: 500 }, { status: 500 }]);
    const store = new MemoryObjectStore();
    const day1 = await runUpstreamBuild(options(store, '2026-11-26'));
    expect(day1.skipped).toEqual([]);
    expect((await modelOf(store, day1.catalog, 'synthetic/queued')).scan).toBeUndefined();
    const day2 = await runUpstreamBuild(options(store, '2026-11-27'));
    expect((await modelOf(store, day2.catalog, 'synthetic/queued')).scan).toEqual({ scansDone: false, filesWithIssues: [] });
    // the scans finish: same revision, a new object chained to the old
    fake.place('synthetic/queued', { 'a.bin': enc.encode('a') }, { scansDone: true, filesWithIssues: [] });
    const day3 = await runUpstreamBuild(options(store, '2026-11-28'));
    const after = await modelOf(store, day3.catalog, 'synthetic/queued');
    expect(after.scan).toEqual({ scansDone: true, filesWithIssues: [] });
    const day2Catalog = JSON.parse(new TextDecoder().decode((await store.get(day2.catalog as Address))?.bytes)) as CatalogObject;
    expect(after.prev).toBe(day2Catalog.objects['synthetic/queued']?.model);
  });

  it('without a verifier, model.sig is indexed as a file and no signature is claimed', async () => {
    fake = new FakeUpstream(modelHostFixtures(), { base: BASE });
    fake.place('synthetic/signed', { 'model.sig': SIG, 'weights.bin': enc.encode('w') });
    const store = new MemoryObjectStore();
    const day = await runUpstreamBuild(options(store, '2026-11-26', { verdicts: { scans: false } }));
    const m = await modelOf(store, day.catalog, 'synthetic/signed');
    expect(m.signature).toBeUndefined();
    expect(m.scan).toBeUndefined();
    expect(m.files.map((f) => f.path)).toEqual(['model.sig', 'weights.bin']);
  });
});

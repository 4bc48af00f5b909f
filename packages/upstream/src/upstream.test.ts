import {
  type Address,
  addressOf,
  type CatalogObject,
  loadIndex,
  MemoryObjectStore,
  type ModelObject,
  parsePins,
  readArchive,
  type SourceObject,
  sha256Hex,
} from '@hub/core-index';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import { type Clock, nextLink, UpstreamClient } from './client.js';
import { parseRetryAfter } from './rate-limit.js';
import { runUpstreamBuild } from './run.js';
import { workRefName } from './state.js';
import type { FakeUpstreamData } from './testing/fake-types.js';
import { FakeUpstream } from './testing/fake-upstream.js';
import type { BuildSummary, UpstreamBuildOptions } from './types.js';

const data: FakeUpstreamData = modelHostFixtures();
const BASE = 'https://hf.test';
const MS = 'https://ms.test';
// SYNTHETIC flags: the real listing dropped gated/private/disabled.
const GATED = ['mistralai/Mistral-Medium-3.5-128B'];
const PRIVATE = ['XiaomiMiMo/MiMo-V2.5'];
const DISABLED = ['inclusionAI/Ling-2.6-flash'];

let fake: FakeUpstream;
const server = setupServer(http.all('*', ({ request }) => fake.handle(request)));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function newFake(extra: Partial<ConstructorParameters<typeof FakeUpstream>[1]> = {}) {
  fake = new FakeUpstream(data, {
    base: BASE,
    msBase: MS,
    gated: GATED,
    private: PRIVATE,
    disabled: DISABLED,
    treePageSize: 3,
    modelscope: {
      // SYNTHETIC ModelScope repositories: the same bytes under the same id, only the weights under another id,
      // and a same-named repository holding other bytes (must not count: matched by SHA-256, never by name).
      'deepseek-ai/DeepSeek-V4-Pro': { from: 'deepseek-ai/DeepSeek-V4-Pro', mode: 'same' },
      'Qwen/Qwen3.6-27B': { from: 'Qwen/Qwen3.6-27B', mode: 'other-bytes' },
    },
    ...extra,
  });
  return fake;
}

function fakeClock(start = Date.parse('2026-05-04T09:00:00Z')): Clock & { sleeps: number[] } {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

const decoder = new TextDecoder();
async function obj<T>(store: MemoryObjectStore, address: string): Promise<T> {
  const s = await store.get(address as Address);
  if (!s) throw new Error(`missing ${address}`);
  expect(addressOf(s.bytes)).toBe(address);
  return JSON.parse(decoder.decode(s.bytes)) as T;
}

function options(store: MemoryObjectStore, extra: Partial<UpstreamBuildOptions> = {}): UpstreamBuildOptions {
  return {
    objects: store,
    upstream: BASE,
    fetch: (...a) => fetch(...a),
    clock: fakeClock(),
    top: 20,
    date: '2026-05-04',
    pageSize: 7,
    modelscope: { base: MS },
    http: { random: () => 0.5 },
    ...extra,
  };
}

describe('the upstream client', () => {
  it('reads Retry-After as seconds or a date, and Link rel=next', () => {
    expect(parseRetryAfter('7', 0)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 4000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(nextLink('<https://h/api/models?cursor=2>; rel="next"', 'https://h/api/models')).toBe('https://h/api/models?cursor=2');
    expect(nextLink('</x?p=2>; rel="prev", </x?p=3>; rel="next"', 'https://h/a')).toBe('https://h/x?p=3');
    expect(nextLink(null, 'https://h/')).toBeUndefined();
  });

  it('waits exactly Retry-After on 429 and backs off with jitter on 5xx', async () => {
    newFake();
    const clock = fakeClock();
    const client = new UpstreamClient({ fetch: (...a) => fetch(...a), clock, random: () => 0.5, baseDelayMs: 1000 });
    fake.inject(/\/api\/models\/openai\/privacy-filter$/, [{ status: 429, headers: { 'retry-after': '7' } }]);
    const first = await client.json<{ id: string }>(`${BASE}/api/models/openai/privacy-filter`);
    expect(first.value.id).toBe('openai/privacy-filter');
    expect(clock.sleeps).toEqual([7000]);
    fake.inject(/\/api\/models\/openai\/privacy-filter$/, [{ status: 503 }, { status: 502 }, { status: 500 }]);
    await client.json(`${BASE}/api/models/openai/privacy-filter`);
    // 1000·2^k steps, half fixed and half jitter (random 0.5): 750, 1500, 3000.
    expect(clock.sleeps.slice(1)).toEqual([750, 1500, 3000]);
    // A 429 is a wait for the window, not a retry: only the 5xx count against the retries.
    expect(client.stats.retries).toBe(3);
    expect(client.stats.rateLimited).toBe(1);
  });

  it('gives up after its retries with an error naming the status', async () => {
    newFake();
    const clock = fakeClock();
    const client = new UpstreamClient({ fetch: (...a) => fetch(...a), clock, retries: 2, deadline: clock.now() + 3600_000 });
    fake.inject(/privacy-filter$/, [{ status: 503 }, { status: 503 }, { status: 503 }]);
    await expect(client.json(`${BASE}/api/models/openai/privacy-filter`)).rejects.toThrow(/HTTP 503 after 3 attempts/);
    // A rate-limited request waits as long as the run's deadline allows, and no longer.
    fake.inject(/privacy-filter$/, [{ status: 429, headers: { 'retry-after': '86400' } }]);
    await expect(client.json(`${BASE}/api/models/openai/privacy-filter`)).rejects.toThrow(/past the run's deadline/);
  });
});

describe('the daily index run', () => {
  let first: BuildSummary;
  const store = new MemoryObjectStore(() => 1_777_000_000_000);

  it('builds 20 public trending models with correct objects, skipping gated, private and disabled rows', async () => {
    newFake();
    const pinned = fake.models.get('openai/privacy-filter')!;
    const pins = parsePins(
      JSON.stringify({
        format: 'svc.model-hub.pins/v1',
        gateway: 'https://ipfs.example',
        models: {
          // SYNTHETIC CIDs
          'openai/privacy-filter': { root: 'bafySYNTHETICroot1', revision: pinned.sha, pinned: '2026-05-01' },
          'deepseek-ai/DeepSeek-V4-Pro': { root: 'bafySYNTHETICold', revision: '0'.repeat(40) },
        },
      }),
    );
    const events: string[] = [];
    first = await runUpstreamBuild(
      options(store, {
        pins,
        missing: ['google-bert/bert-base-uncased', 'nobody/not-there', 'not an id'],
        onProgress: (p) => events.push(p.phase),
      }),
    );
    expect(first.models).toBe(21); // 20 trending + bert from the missing log
    const reasons = Object.fromEntries(first.skipped.map((s) => [s.id, s.reason]));
    expect(reasons).toMatchObject({
      'mistralai/Mistral-Medium-3.5-128B': 'gated',
      'XiaomiMiMo/MiMo-V2.5': 'private',
      'inclusionAI/Ling-2.6-flash': 'disabled',
      'nobody/not-there': 'not-found',
    });
    expect(first.skippedByReason).toMatchObject({ gated: 1, private: 1, disabled: 1, 'not-found': 1 });
    expect(events).toContain('models');
    expect(events.at(-1)).toBe('done');

    const catalog = await obj<CatalogObject>(store, first.catalog);
    const expectedIds = data.trending
      .map((r) => r.id)
      .filter((id) => ![...GATED, ...PRIVATE, ...DISABLED].includes(id))
      .slice(0, 20);
    expect(catalog.rows.map((r) => r.id)).toEqual([...expectedIds, 'google-bert/bert-base-uncased']);
    expect(catalog.prev).toBeNull();
    const index = await loadIndex(store, first.catalog);
    expect(index.totals.models).toBe(21);

    // Every file: small files hashed from their bytes, LFS files from lfs.oid.
    for (const id of expectedIds) {
      const m = index.warm(id)!;
      const f = fake.models.get(id)!;
      expect(m.revision).toBe(f.sha);
      expect(m.files.map((x) => x.path)).toEqual(f.files.map((x) => x.path).sort());
      for (const file of f.files) {
        const got = m.file(file.path)!;
        expect(got.size).toBe(file.size);
        expect(got.sha256).toBe(file.lfs ?? sha256Hex(file.bytes!));
      }
      expect(m.sources.map((s) => s.source)).toContain('huggingface.co');
    }
    // The real bert tree: LFS SHA-256 from the real listing, listed: false (asked for, not trending).
    const bert = index.warm('google-bert/bert-base-uncased')!;
    expect(bert.revision).toBe('dd4bc8b21efa05ec961e3efc4ee5e3832a3679c7');
    expect(bert.file('pytorch_model.bin')).toEqual({
      path: 'pytorch_model.bin',
      size: 440473133,
      sha256: '097417381d6c7230bd9e3557456d726de6e83245ec8b24f529f60198a67b203a',
    });
    expect(bert.row.svc.listed).toBe(false);
    expect(bert.object.license).toBe('apache-2.0');

    // Listing facts.
    const top = index.warm('deepseek-ai/DeepSeek-V4-Pro')!;
    expect(top.row).toMatchObject({ trendingScore: 465, pipeline_tag: 'text-generation', library_name: 'transformers', downloads: 534942 });
    expect(top.object.license).toBe('mit');

    // GGUF header facts from range reads of the real tiny GGUF.
    const ggufModel = index.warm('SulphurAI/Sulphur-2-base')!;
    const g = ggufModel.object.facts.gguf?.[0];
    expect(g).toMatchObject({ path: 'Sulphur-2-base-Q4_K_M.gguf', architecture: 'llama', context_length: 4096, quantization: 'Q4_K_M' });
    expect(g?.parameters).toBeGreaterThan(0);
    expect(ggufModel.row.svc.context).toBe(4096);
    expect(fake.counts.range).toBeGreaterThan(0);

    // Sources: ModelScope by SHA-256 (a same-named repository with other bytes does not count), IPFS from pins.
    const ms = top.sources.find((s) => s.source === 'modelscope.cn') as SourceObject;
    expect(ms).toMatchObject({ type: 'http', remote_revision: 'master' });
    expect(ms.paths).toBeUndefined();
    expect(index.warm('Qwen/Qwen3.6-27B')!.sources.map((s) => s.source)).toEqual(['huggingface.co']);
    expect(index.warm('openai/privacy-filter')!.sources.find((s) => s.source === 'ipfs')).toMatchObject({
      type: 'ipfs',
      root: 'bafySYNTHETICroot1',
    });
    expect(top.sources.some((s) => s.source === 'ipfs')).toBe(false); // pinned at another revision

    const archive = await readArchive(store);
    expect(archive.registry).toBe('hub/index');
    expect(archive.gateway).toBe('https://ipfs.example');
    expect(archive.days).toHaveLength(1);
    expect(archive.days[0]).toMatchObject({ date: '2026-05-04', index: first.catalog, models: 21, prev: null });
    expect(await store.readRef('current')).toBe(first.catalog);
    const work = JSON.parse((await store.readRef(workRefName('2026-05-04')))!);
    expect(work.finished).toBe(first.catalog);
  });

  it('a second build after the upstream changes chains to the first and reuses unchanged revisions', async () => {
    fake.bump('deepseek-ai/DeepSeek-V4-Pro');
    fake.order = [fake.order[1]!, fake.order[0]!, ...fake.order.slice(2)];
    const treesBefore = fake.counts['tree-first'] ?? 0;
    const second = await runUpstreamBuild(options(store, { date: '2026-05-05' }));
    expect(second.catalog).not.toBe(first.catalog);
    const catalog = await obj<CatalogObject>(store, second.catalog);
    expect(catalog.prev).toBe(first.catalog);
    expect(catalog.rows[0]!.id).toBe('XiaomiMiMo/MiMo-V2.5-Pro');
    const before = await obj<CatalogObject>(store, first.catalog);
    const changed = await obj<ModelObject>(store, catalog.objects['deepseek-ai/DeepSeek-V4-Pro']!.model);
    expect(changed.revision).toBe(fake.models.get('deepseek-ai/DeepSeek-V4-Pro')!.sha);
    expect(changed.prev).toBe(before.objects['deepseek-ai/DeepSeek-V4-Pro']!.model);
    // Unchanged models keep their object and address, and their trees are not fetched again.
    expect(catalog.objects['openai/privacy-filter']!.model).toBe(before.objects['openai/privacy-filter']!.model);
    expect(second.reused).toBe(19);
    expect((fake.counts['tree-first'] ?? 0) - treesBefore).toBe(1);
    const archive = await readArchive(store);
    expect(archive.days.map((d) => d.date)).toEqual(['2026-05-05', '2026-05-04']);
    expect(archive.days[0]!.prev).toBe(first.catalog);
    expect(await store.readRef('current')).toBe(second.catalog);
  });

  it('honours Retry-After on a 429 during the run (the clock proves the wait) and ends with the same catalog', async () => {
    newFake();
    const clean = await runUpstreamBuild(options(new MemoryObjectStore(), { top: 5 }));
    newFake();
    fake.inject(/\/tree\//, [{ status: 429, headers: { 'retry-after': '7' } }]);
    fake.inject(/\/resolve\/.*config\.json$/, [{ status: 503 }]);
    const clock = fakeClock();
    const run = await runUpstreamBuild(options(new MemoryObjectStore(), { top: 5, clock }));
    expect(clock.sleeps).toContain(7000);
    expect(clock.sleeps).toContain(750);
    expect(run.retries).toBe(1);
    expect(run.rateLimited).toBe(1);
    expect(run.waitedMs).toBeGreaterThanOrEqual(7750);
    expect(run.catalog).toBe(clean.catalog);
  });

  it('a run interrupted midway and run again reuses finished models and ends identical to an uninterrupted one', async () => {
    newFake();
    const uninterrupted = await runUpstreamBuild(options(new MemoryObjectStore(), { top: 12 }));
    newFake();
    const s = new MemoryObjectStore();
    await expect(
      runUpstreamBuild(
        options(s, {
          top: 12,
          onProgress: (p) => {
            if (p.phase === 'models' && p.done === 6) throw new Error('killed');
          },
        }),
      ),
    ).rejects.toThrow('killed');
    await new Promise((r) => setTimeout(r, 300)); // models already in flight settle (a real kill drops them)
    expect(await s.readRef('current')).toBeUndefined();
    const work = JSON.parse((await s.readRef(workRefName('2026-05-04')))!);
    expect(Object.keys(work.done).length).toBeGreaterThanOrEqual(6);
    const treesBefore = fake.counts['tree-first'] ?? 0;
    const rerun = await runUpstreamBuild(options(s, { top: 12 }));
    expect(rerun.resumed).toBeGreaterThanOrEqual(6);
    expect(rerun.catalog).toBe(uninterrupted.catalog);
    expect((fake.counts['tree-first'] ?? 0) - treesBefore).toBe(12 - rerun.resumed);
  });

  it('drops a model the upstream refuses with the reason its X-Error-Code gives (RepoNotFound, GatedRepo, disabled)', async () => {
    newFake();
    const tree = (id: string) => new RegExp(`/api/models/${id}/tree/`);
    const [a, b, c] = fake.order.slice(0, 3) as [string, string, string];
    // Header shapes as huggingface_hub's hf_raise_for_status reads them.
    fake.inject(tree(a), [{ status: 401, headers: { 'x-error-code': 'RepoNotFound', 'x-error-message': 'Repository not found' } }]);
    fake.inject(tree(b), [{ status: 401, headers: { 'x-error-code': 'GatedRepo' } }]);
    fake.inject(tree(c), [{ status: 403, headers: { 'x-error-message': 'Access to this resource is disabled.' } }]);
    const run = await runUpstreamBuild(options(new MemoryObjectStore(), { top: 3 }));
    expect(run.models).toBe(0);
    expect(run.skipped).toContainEqual(expect.objectContaining({ id: a, reason: 'not-found' }));
    expect(run.skipped).toContainEqual(expect.objectContaining({ id: b, reason: 'gated' }));
    expect(run.skipped).toContainEqual(expect.objectContaining({ id: c, reason: 'disabled' }));
  });

  it('skips a model whose non-LFS file is over the cap, and says why', async () => {
    newFake();
    const run = await runUpstreamBuild(
      options(new MemoryObjectStore(), { top: 3, smallFileCap: 100_000, missing: ['google-bert/bert-base-uncased'] }),
    );
    expect(run.models).toBe(3);
    expect(run.skipped).toContainEqual(expect.objectContaining({ id: 'google-bert/bert-base-uncased', reason: 'file-over-cap' }));
    expect(run.skipped.find((x) => x.id === 'google-bert/bert-base-uncased')!.detail).toContain('vocab.txt');
  });
});

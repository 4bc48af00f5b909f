import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BoundedQueue, type BuildModelInput, ggufFactsOf, silentLogger } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { UpstreamClient } from './client.js';
import { SourceLookups } from './lookups.js';
import { type IndexModelContext, remoteGgufFacts } from './model.js';

/** The upstream run's users of the rules written once: each is called and compared with the rule itself. */

const REV = 'e'.repeat(40);
// SYNTHETIC model: made-up id and digests
const MODEL: BuildModelInput = {
  id: 'synthetic-org/rule-guard',
  revision: REV,
  license: null,
  files: [{ path: 'config.json', size: 2, sha256: '0'.repeat(64) }],
  sources: [{ source: 'mirror-a', type: 'http' }],
};
/** The demo tree's real tiny GGUF (packages/node-toolkit/demo), read as a file: the upstream run imports no node-toolkit. */
const DEMO_GGUF = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../node-toolkit/demo/tree/demo/tiny-llama-2-GGUF/llama-2-tiny-random-F16.gguf',
);

describe('the bounded queue: every user holds the bound and starts in arrival order', () => {
  /** How a gate ran six tasks: the most at once, and the order they started in. */
  async function observe(start: (i: number, task: () => Promise<void>) => Promise<unknown>): Promise<{ peak: number; order: number[] }> {
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const runs = Array.from({ length: 6 }, (_, i) =>
      start(i, async () => {
        order.push(i);
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5 + (i % 3)));
        active--;
      }),
    );
    await Promise.all(runs);
    return { peak, order };
  }

  it('BoundedQueue, the upstream client (requests) and the run secondary-source lookups agree', async () => {
    const q = new BoundedQueue(2);
    const rule = await observe((_i, task) => q.run(task));
    expect(rule).toEqual({ peak: 2, order: [0, 1, 2, 3, 4, 5] });

    const tasks = new Map<string, () => Promise<void>>();
    const client = new UpstreamClient({
      concurrency: 2,
      retries: 0,
      fetch: (async (url: string) => {
        await tasks.get(url)?.();
        return new Response('{}', { headers: { 'content-type': 'application/json' } });
      }) as typeof fetch,
    });
    const viaClient = await observe((i, task) => {
      tasks.set(`https://up.test/api/models/o/m${i}`, task);
      return client.json(`https://up.test/api/models/o/m${i}`);
    });
    expect(viaClient).toEqual(rule);

    const finds = new Map<string, () => Promise<void>>();
    const lookups = new SourceLookups(
      {
        source: 'synthetic.test',
        find: async ({ id }: { id: string }) => {
          await finds.get(id)?.();
          return undefined;
        },
      } as never,
      { call: async (fn: () => Promise<unknown>) => ({ skipped: false, value: await fn() }) } as never,
      {} as never,
      2,
    );
    const viaLookups = await observe(async (i, task) => {
      finds.set(`o/m${i}`, task);
      await new Promise<void>((done) => lookups.add({ ...MODEL, id: `o/m${i}` }, async () => done()));
    });
    expect(viaLookups).toEqual(rule);
  });
});

describe('GGUF facts: the upstream run reads what ggufFactsOf reads', () => {
  it('range requests over the file agree with ggufFactsOf on the whole file (from-dir: node-toolkit)', async () => {
    const rel = 'llama-2-tiny-random-F16.gguf';
    const bytes = readFileSync(DEMO_GGUF);
    const fetchFile = (async (_url: string, init?: RequestInit) => {
      const range = new Headers(init?.headers).get('range');
      const m = range ? /bytes=(\d+)-(\d*)/.exec(range) : null;
      if (!m) return new Response(bytes);
      const start = Number(m[1]);
      const end = m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
      return new Response(bytes.subarray(start, end + 1), {
        status: 206,
        headers: { 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': String(end - start + 1) },
      });
    }) as typeof fetch;
    const ctx = {
      client: new UpstreamClient({ fetch: fetchFile, retries: 0 }),
      upstream: 'https://up.test',
      smallFileCap: 0,
      ggufHeaders: 1,
      hfSource: 'huggingface.co',
      log: silentLogger,
    } as IndexModelContext;
    const remote = await remoteGgufFacts(ctx, `https://up.test/o/n/resolve/${REV}/${rel}`, rel);
    expect(remote?.architecture).toBe('llama');
    const { gguf } = await import('@huggingface/gguf');
    const parsed = await gguf(DEMO_GGUF, { allowLocalFile: true, computeParametersCount: true });
    expect(remote).toEqual(ggufFactsOf(rel, parsed as never));
  });
});

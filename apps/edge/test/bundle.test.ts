import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs (the post-build size report)
import { inspectBundle } from '../scripts/report-size.mjs';
import { bundleWorker, EDGE_DIR } from './harness.js';

describe('the Worker bundle', () => {
  it('imports nothing from Node and stays well under the Workers size limit', async () => {
    const { code } = await bundleWorker();
    const report = inspectBundle(code) as { bytes: number; gzipBytes: number; forbidden: string[] };
    expect(report.forbidden).toEqual([]);
    // Cloudflare counts the gzip size: 3 MiB on the free plan.
    expect(report.gzipBytes).toBeLessThan(3 * 1024 * 1024);
    expect(code).not.toMatch(/blake3-wasm/);
  });

  it('the scan finds node: and bare built-in imports', () => {
    const bad = inspectBundle(
      'import fs from "node:fs";\nimport { Readable } from "stream";\nconst x = await import("node:crypto");\nimport ok from "./ok.js";',
    );
    expect(bad.forbidden.sort()).toEqual(['node:crypto', 'node:fs', 'stream']);
  });

  it('wrangler.jsonc declares every binding the Worker reads', async () => {
    const text = await readFile(path.join(EDGE_DIR, 'wrangler.jsonc'), 'utf8');
    // JSONC: drop comments (none of the values holds "//").
    const config = JSON.parse(text.replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1'));
    expect(config.main).toBe('dist/worker.js');
    expect(config.r2_buckets.map((b: { binding: string }) => b.binding)).toEqual(['OBJECTS']);
    expect(config.d1_databases.map((b: { binding: string }) => b.binding)).toEqual(['ACCOUNTS']);
    expect(config.kv_namespaces.map((b: { binding: string }) => b.binding)).toEqual(['STATE']);
    expect(config.triggers.crons).toEqual(['* * * * *']);
    expect(config.compatibility_flags ?? []).not.toContain('nodejs_compat');
  });
});

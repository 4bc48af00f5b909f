import { formatBytes } from '@hub/core-index';
import { DEMO_SOURCE, demoSource } from '@hub/node-toolkit';
import type { BuildSummary } from '@hub/upstream';
import { describe, expect, it } from 'vitest';
import { ProgressBars } from '../src/progress.js';
import { sourcesFromConfig } from '../src/sources-config.js';
import { summaryText } from '../src/upstream-build.js';

/**
 * node-server's users of the rules written once (tests/one-rule-users.test.ts has the routes' users): each is called
 * and what it does is compared with the rule itself.
 */

// SYNTHETIC sizes, chosen where binary and decimal units differ
const SIZES = [1536, 5 * 1024 * 1024 + 1, 3 * 1024 ** 3];

describe('byte sizes: node-server writes formatBytes', () => {
  it('the upstream run summary and the download progress line', () => {
    const summary = summaryText({
      catalog: 'blake3:x',
      date: '2026-01-01',
      models: 1,
      files: 3,
      bytes: SIZES[2],
      skipped: [],
      skippedByReason: {},
      reused: 0,
      kept: 0,
      keptByReason: {},
      resumed: 0,
      sources: {},
      requests: 1,
      requestsByBucket: { api: 1 },
      retries: 0,
      rateLimited: 0,
      waitedMs: 0,
      downloadedBytes: SIZES[0],
      seconds: 1,
    } as unknown as BuildSummary);
    expect(summary).toContain(formatBytes(SIZES[2] as number));
    expect(summary).toContain(`${formatBytes(SIZES[0] as number)} of small files hashed`);
    const out: string[] = [];
    const bars = new ProgressBars(
      (s) => void out.push(s),
      () => 0,
    );
    bars.update({ file: 'f', source: 's', received: SIZES[0] as number, size: SIZES[1] as number });
    expect(bars.line('f')).toContain(`${formatBytes(SIZES[0] as number)}/${formatBytes(SIZES[1] as number)}`);
  });
});

describe('the demo source: one entry', () => {
  it('node-server configures the demo mirror as demoSource() says, first in its sources after the defaults', () => {
    const template = 'http://127.0.0.1:9/{id}/resolve/{revision}/{path}';
    const sources = sourcesFromConfig({}, { template } as never);
    // node-server's demo mirror runs beside the hub, so its redirects name the client's host (issue 26: onHubHost)
    expect(sources.find((s) => s.name === DEMO_SOURCE)).toEqual(demoSource(template, { onHubHost: true }));
  });
});

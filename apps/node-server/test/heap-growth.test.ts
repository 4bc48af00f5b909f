import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from '../src/heap-growth.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('hub serve bounds the heap headroom V8 keeps between collections', () => {
  it('sets --heap-growing-percent unless the operator chose one on the command line or in NODE_OPTIONS', () => {
    expect(boundHeapGrowth(HEAP_GROWING_PERCENT, [], '')).toBe(50);
    expect(boundHeapGrowth(50, ['--heap-growing-percent=80'], '')).toBeUndefined();
    expect(boundHeapGrowth(50, [], '--max-old-space-size=512 --heap_growing_percent=20')).toBeUndefined();
    expect(boundHeapGrowth(50, ['--inspect'], '--max-old-space-size=512')).toBe(50);
  });

  it('is a flag this Node accepts after start (a flag it did not know would print a warning and do nothing)', () => {
    // V8 names an unknown flag on stderr ("Error: unrecognized flag"); a known one is taken silently.
    const run = (flag: string) =>
      spawnSync(process.execPath, ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`], {
        cwd: here,
        encoding: 'utf8',
      });
    expect(run('--heap-growing-percent=50').stderr).toBe('');
    expect(run('--heap-growing-percentage-not-a-flag=50').stderr).toMatch(/unrecognized|unknown/i);
  });
});

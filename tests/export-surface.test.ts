import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { missingExports, readSurface, unusedExports } from './export-surface.js';

/**
 * Named, deliberate exports (issue 25): every name a package entry exports is imported by another package, an app, a
 * test, a script or the package's README example, and nothing at a root is `export *` or another package's name.
 * knip (`includeEntryExports`, with `@hub/*` mapped to sources in knip.json) finds a declaration nobody uses; this
 * finds a root export nobody imports from the root.
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the export surface of this repository', () => {
  const surface = readSurface(root);

  it('every root is named export by export, and every import of the workspace can be read', () => {
    expect(surface.problems).toEqual([]);
  });

  it('every name a package root exports is imported from outside the package (or by its README example)', () => {
    expect(unusedExports(surface)).toEqual([]);
  });

  it('every name imported from a root (README examples included) is exported by it', () => {
    expect(missingExports(surface)).toEqual([]);
  });
});

describe('the surface reader (SYNTHETIC packages in a temp folder)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'surface-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  const exportsField = { '.': { import: './dist/index.js' }, './testing': { import: './dist/testing/index.js' } };
  put('packages/low/package.json', JSON.stringify({ name: '@hub/low', exports: exportsField }));
  put(
    'packages/low/src/index.ts',
    [
      "export { named, aliased as renamed, type Shape } from './a.js';",
      "export { member, dynamic, viaDist } from './b.js';",
      "export { readme } from './c.js';",
      'export const declared = 1;',
      'export function nobody(): void {}',
      "export { onlyInside } from './d.js';",
    ].join('\n'),
  );
  put('packages/low/src/testing/index.ts', "export { kit } from './kit.js';\n");
  // the package's own test does not keep its root alive
  put('packages/low/src/a.test.ts', "import { onlyInside } from '@hub/low';\n");
  put('packages/low/README.md', "# low\n\n```ts\nimport { readme } from '@hub/low';\n```\n");
  put('packages/high/package.json', JSON.stringify({ name: '@hub/high', exports: { '.': { import: './dist/index.js' } } }));
  put(
    'packages/high/src/index.ts',
    [
      "import { named, type Shape, renamed as r } from '@hub/low';",
      "import * as low from '@hub/low';",
      "import { kit } from '@hub/low/testing';",
      "export type { Shape as Again } from '@hub/low';",
      'export const use = [named, r, low.member, kit, low.declared];',
      "export const later = async () => (await import('@hub/low')).dynamic;",
    ].join('\n'),
  );
  put(
    'bench/x.mjs',
    "import { viaDist } from '../packages/low/dist/index.js';\nimport { use } from '@hub/high';\nconsole.log(viaDist, use);\n",
  );

  it('reads named, renamed, namespace, dynamic, dist-path and README imports; a name nobody imports is unused', () => {
    const s = readSurface(dir);
    expect(unusedExports(s).sort()).toEqual([
      '@hub/high: Again (packages/high/src/index.ts)',
      '@hub/high: later (packages/high/src/index.ts)',
      '@hub/low: nobody (packages/low/src/index.ts)',
      '@hub/low: onlyInside (packages/low/src/index.ts)',
    ]);
    expect(s.problems).toEqual(['packages/high/src/index.ts: re-exports @hub/low; import it from there instead']);
  });

  it('fails on `export *` at a root, on a namespace used whole, and on a name a README imports that is not there', () => {
    put('packages/low/src/testing/index.ts', "export * from './kit.js';\n");
    put('apps/app/main.ts', "import * as low from '@hub/low';\nconsole.log(low);\n");
    put('packages/high/README.md', "```ts\nimport { gone } from '@hub/low';\n```\n");
    const s = readSurface(dir);
    expect(s.problems).toContain("packages/low/src/testing/index.ts: `export * from './kit.js'` at a root; name each export");
    expect(s.problems).toContain('apps/app/main.ts:1: namespace `low` is used whole; import its names one by one');
    expect(missingExports(s)).toContain('@hub/low: gone');
  });
});

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CORE_INDEX_ORDER,
  circles,
  importGraph,
  isTest,
  lineCount,
  longFiles,
  MAX_LINES,
  type SourceFile,
  silentSkips,
  sourceFiles,
  specifiersOf,
  srcReachedByPath,
  upwardImports,
} from './house.js';

/**
 * The house rules beside the layers (tests/layers.test.ts): no source file over 400 lines, no import circle between
 * files (type-only imports count), and core-index's folders in one direction (docs/decisions/architecture.md).
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = sourceFiles(root);
const graph = importGraph(files);

describe('the house: file sizes and import circles', () => {
  it('reads the whole tree (every package and app, tests included)', () => {
    for (const dir of ['packages/core-index/src/', 'packages/spaces/', 'apps/edge/src/', 'apps/node-server/test/', 'tests/', 'bench/'])
      expect(
        files.some((f) => f.file.startsWith(dir)),
        dir,
      ).toBe(true);
  });

  it(`no non-test source file is over ${MAX_LINES} lines`, () => {
    expect(longFiles(files)).toEqual([]);
  });

  it('no two files import each other, through any number of files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('no folder of core-index imports a folder above it (CORE_INDEX_ORDER)', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('every test that may be skipped says in its name what it waits for: (needs …)', () => {
    expect(silentSkips(files)).toEqual([]);
  });

  it("no file reaches another package's or app's src/ by a relative path", () => {
    expect(srcReachedByPath(files)).toEqual([]);
  });

  it('every folder and root file of core-index has its place in the order', () => {
    const units = new Set(files.filter((f) => f.file.startsWith('packages/core-index/src/')).map((f) => f.file.split('/')[3]));
    expect([...units].filter((u) => !CORE_INDEX_ORDER.flat().includes(u as string))).toEqual([]);
  });
});

describe('the house rules catch what they are for', () => {
  const line = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};`).join('\n');

  it('a 401-line source file fails, a 400-line one and a long test pass', () => {
    const tree: SourceFile[] = [
      { file: 'packages/a/src/long.ts', text: `${line(401)}\n` },
      { file: 'packages/a/src/ok.ts', text: `${line(400)}\n` },
      { file: 'packages/a/src/no-newline.ts', text: line(400) },
      { file: 'packages/a/src/long.test.ts', text: line(900) },
      { file: 'apps/b/test/helpers.ts', text: line(900) },
    ];
    expect(longFiles(tree)).toEqual(['packages/a/src/long.ts: 401 lines']);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(isTest('apps/node-server/test/helpers.ts')).toBe(true);
  });

  it('a circle of two files fails, a type-only import and a re-export counted', () => {
    const tree: SourceFile[] = [
      { file: 'packages/a/src/one.ts', text: "import { two } from './two.js';\nexport const one = two;" },
      { file: 'packages/a/src/two.ts', text: "import type { One } from './one.js';\nexport const two = 2 as unknown as One;" },
      { file: 'packages/a/src/three.ts', text: "export * from './four.js';" },
      { file: 'packages/a/src/four.ts', text: "export type T = import('./three.js').U;" },
      { file: 'packages/a/src/five.ts', text: "import { one } from './one.js';" },
    ];
    expect(circles(importGraph(tree))).toEqual([
      ['packages/a/src/four.ts', 'packages/a/src/three.ts'],
      ['packages/a/src/one.ts', 'packages/a/src/two.ts'],
    ]);
  });

  it('a circle through a workspace entry (@hub/x) is found', () => {
    const tree: SourceFile[] = [
      { file: 'packages/x/src/index.ts', text: "export { a } from './a.js';" },
      { file: 'packages/x/src/a.ts', text: "import type { B } from '@hub/x';\nexport const a = 1;" },
    ];
    expect(circles(importGraph(tree))).toEqual([['packages/x/src/a.ts', 'packages/x/src/index.ts']]);
  });

  it('reads imports with the parser, not by pattern: a string that looks like an import is not one', () => {
    expect(specifiersOf("const s = \"import x from './nope.js'\";\n// import y from './nor.js'\nimport z from './yes.js';")).toEqual([
      './yes.js',
    ]);
  });

  it('an upward import in core-index fails (index/ importing build/), a test importing upward does not', () => {
    const tree: SourceFile[] = [
      { file: 'packages/core-index/src/index/schemas.ts', text: "import { b } from '../build/builder.js';" },
      { file: 'packages/core-index/src/build/builder.ts', text: "import { s } from '../index/schemas.js';" },
      { file: 'packages/core-index/src/index/schemas.test.ts', text: "import { b } from '../build/builder.js';" },
      { file: 'packages/core-index/src/tlog/a.ts', text: "import { c } from '../spaces/c.js';" },
      { file: 'packages/core-index/src/spaces/c.ts', text: 'export const c = 1;' },
    ];
    expect(upwardImports(importGraph(tree))).toEqual([
      'packages/core-index/src/index/schemas.ts -> packages/core-index/src/build/builder.ts (index imports build)',
      'packages/core-index/src/tlog/a.ts -> packages/core-index/src/spaces/c.ts (tlog imports spaces)',
    ]);
  });

  it('a skip without "(needs …)" in its name is found, in every form a test is skipped', () => {
    const tree: SourceFile[] = [
      {
        file: 'apps/a/test/x.test.ts',
        text: [
          "describe.skipIf(!tool)('silent suite', () => {});",
          "describe.skipIf(!cli).concurrent('silent concurrent', () => {});",
          "it.runIf(ok)('said (needs the tool)', () => {});",
          "it.skip('silent skip', () => {});",
          "it('not skipped', () => {});",
          "describe.skipIf(!cli).concurrent('said concurrent (needs the built CLI)', () => {});",
        ].join('\n'),
      },
    ];
    expect(silentSkips(tree)).toEqual([
      "apps/a/test/x.test.ts:1: 'silent suite'",
      "apps/a/test/x.test.ts:2: 'silent concurrent'",
      "apps/a/test/x.test.ts:4: 'silent skip'",
    ]);
  });

  it("a relative import of another unit's src/ is found; its own src/ and another app's test harness are not", () => {
    const tree: SourceFile[] = [
      { file: 'tests/a.test.ts', text: "import { x } from '../packages/p/src/x.js';\nimport { h } from '../apps/q/test/h.js';" },
      { file: 'packages/p/src/x.ts', text: 'export const x = 1;' },
      { file: 'packages/p/src/x.test.ts', text: "import { x } from './x.js';" },
      { file: 'apps/q/test/h.ts', text: "import { y } from '../src/y.js';" },
      { file: 'apps/q/src/y.ts', text: 'export const y = 1;' },
    ];
    expect(srcReachedByPath(tree)).toEqual(['tests/a.test.ts: ../packages/p/src/x.js']);
  });
});

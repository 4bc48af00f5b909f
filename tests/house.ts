import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The file-level rules of the house (issue 38), measured on the code as it is: the length of every source file, the
 * import graph between files (type-only imports, `export … from` and `import()` included, read with the TypeScript
 * parser), its circles, and the order of core-index's folders. tests/house.test.ts holds them; each function takes
 * the files as `{ file, text }` so a test can hand it a made-up tree as well.
 */

export interface SourceFile {
  /** relative to the repository root, `/`-separated */
  file: string;
  text: string;
}

/** The most lines a source file (not a test) may hold. */
export const MAX_LINES = 400;

const SKIP = new Set(['node_modules', 'dist', '.turbo', '.wrangler', '.git', 'test-artifacts', 'coverage']);
const CODE = /\.(ts|mts|cts|tsx|mjs|cjs|js)$/;
const TOP = ['packages', 'apps', 'tests', 'bench', 'tooling', 'fixtures', 'ops'];

function walk(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(path.join(root, dir))) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const rel = `${dir}/${name}`;
    if (statSync(path.join(root, rel)).isDirectory()) walk(root, rel, out);
    else if (CODE.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
}

/** Every code file of the repository (packages, apps, tests, bench, tooling, fixtures, ops) with its text. */
export function sourceFiles(root: string): SourceFile[] {
  const out: string[] = [];
  for (const top of TOP) if (existsSync(path.join(root, top))) walk(root, top, out);
  for (const name of readdirSync(root)) if (CODE.test(name) && statSync(path.join(root, name)).isFile()) out.push(name);
  return out.sort().map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
}

/** A test file: `*.test.ts` (and the like), or any file under an app's or a tool's `test/` folder. */
export function isTest(file: string): boolean {
  return /\.test\.[cm]?[jt]sx?$/.test(file) || file.split('/').includes('test');
}

/** The lines of a text (a last line without a newline counts; a trailing newline does not open another). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** `file: N lines` for each non-test source file over {@link MAX_LINES}. */
export function longFiles(files: readonly SourceFile[]): string[] {
  return files
    .filter((f) => !isTest(f.file))
    .map((f) => ({ file: f.file, n: lineCount(f.text) }))
    .filter((f) => f.n > MAX_LINES)
    .map((f) => `${f.file}: ${f.n} lines`);
}

/** The workspace entries (as tsconfig.check.json maps them): `@hub/x/sub` → the file it stands for. */
function workspaceEntry(spec: string): string | undefined {
  const m = /^@hub\/([^/]+)(?:\/(.+))?$/.exec(spec);
  if (!m) return undefined;
  const [, name, sub] = m;
  if (sub === undefined) return `packages/${name}/src/index.ts`;
  if (sub === 'testing' || sub === 'node') return `packages/${name}/src/${sub}/index.ts`;
  return `packages/${name}/src/${sub}.ts`;
}

/** The file an import specifier lands on, if it is one of `known` (a package outside the workspace: undefined). */
export function resolveImport(from: string, spec: string, known: ReadonlySet<string>): string | undefined {
  const entry = workspaceEntry(spec);
  if (entry) return known.has(entry) ? entry : undefined;
  if (!spec.startsWith('.')) return undefined;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.(m|c)?js$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${stem}.tsx`, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => known.has(c));
}

/** Every specifier a file imports or re-exports: static, type-only and `import()` (also `import('…').Type`). */
export function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The import graph between the given files: file → the files it imports. */
export function importGraph(files: readonly SourceFile[]): Map<string, Set<string>> {
  const known = new Set(files.map((f) => f.file));
  const graph = new Map<string, Set<string>>();
  for (const f of files) {
    const to = new Set<string>();
    for (const spec of specifiersOf(f.text)) {
      const target = resolveImport(f.file, spec, known);
      if (target !== undefined) to.add(target);
    }
    graph.set(f.file, to);
  }
  return graph;
}

/** The import circles of a graph: each strongly connected set of two or more files (or one importing itself), sorted. */
export function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative (a deep import chain must not overflow the stack)
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edges: string[]; i: number }> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: [...(graph.get(node) ?? [])], i: 0 });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1] as { node: string; edges: string[]; i: number };
      if (top.i < top.edges.length) {
        const to = top.edges[top.i++] as string;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node) as number, index.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(top.node) as number));
      if (low.get(top.node) === index.get(top.node)) {
        const part: string[] = [];
        let n: string;
        do {
          n = stack.pop() as string;
          onStack.delete(n);
          part.push(n);
        } while (n !== top.node);
        if (part.length > 1 || graph.get(top.node)?.has(top.node)) out.push(part.sort());
      }
    }
  }
  return out.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/**
 * core-index's folders from the bottom up (a root file is named by itself). A file imports only files of its own
 * folder or of a lower level; folders on one level do not import each other. Tests are not held to it: a test sits
 * beside what it tests and may build its input with anything of its package.
 */
export const CORE_INDEX_ORDER: readonly (readonly string[])[] = [
  // the parts of zod the schemas use
  ['zod.ts'],
  // what the core reports: metric events and the logger
  ['observe'],
  // the index: schemas, addresses, canonical JSON, object stores, catalog shards, the load pack, search, source kinds
  ['index'],
  // what the builder writes beside the index: the transparency log, the spaces and buckets catalogs
  ['tlog', 'spaces', 'buckets'],
  // the sources' health and probes
  ['sources'],
  // the builder, the load-pack writer, the JSON schemas of every object
  ['build'],
  // requests: the contract, admission, rules, the hub
  ['http'],
  // test helpers (the `./testing` entry)
  ['testing'],
  // the entries
  ['index.ts', 'light.ts'],
];

const CORE = 'packages/core-index/src/';

/** The unit of a core-index file: its folder under src/, or its own name at the root. */
function coreUnit(file: string): string {
  return file.slice(CORE.length).split('/')[0] as string;
}

/** Each import of a core-index (non-test) file that lands on its own level's other folder or a level above it. */
export function upwardImports(graph: ReadonlyMap<string, ReadonlySet<string>>, order = CORE_INDEX_ORDER): string[] {
  const level = new Map<string, number>();
  order.forEach((units, i) => {
    for (const u of units) level.set(u, i);
  });
  const out: string[] = [];
  for (const [from, tos] of graph) {
    if (!from.startsWith(CORE) || isTest(from)) continue;
    const fromUnit = coreUnit(from);
    const fromLevel = level.get(fromUnit);
    if (fromLevel === undefined) {
      out.push(`${from}: ${fromUnit} has no place in CORE_INDEX_ORDER`);
      continue;
    }
    for (const to of tos) {
      if (!to.startsWith(CORE)) continue;
      const toUnit = coreUnit(to);
      if (toUnit === fromUnit) continue;
      const toLevel = level.get(toUnit);
      if (toLevel === undefined || toLevel >= fromLevel) out.push(`${from} -> ${to} (${fromUnit} imports ${toUnit})`);
    }
  }
  return out.sort();
}

const SKIPS = new Set(['skip', 'skipIf', 'runIf', 'todo']);

/** The skip marker (`skip`, `skipIf(…)`, `runIf(…)`, `todo`) in a test call's callee chain, if any. */
function skipIn(callee: ts.Expression): string | undefined {
  let e: ts.Expression = callee;
  for (;;) {
    if (ts.isCallExpression(e)) e = e.expression;
    else if (ts.isPropertyAccessExpression(e)) {
      if (SKIPS.has(e.name.text)) return e.name.text;
      e = e.expression;
    } else return undefined;
  }
}

/** A call that is a link of a longer test call (`describe.skipIf(c)` in `describe.skipIf(c).concurrent('…')`). */
function inCalleeChain(node: ts.CallExpression): boolean {
  const p = node.parent;
  return (ts.isCallExpression(p) || ts.isPropertyAccessExpression(p)) && p.expression === node;
}

/**
 * Each test or suite that may be skipped (`it.skip`, `describe.skipIf(…)`, `it.runIf(…)`, `todo`) whose name does not
 * say what it waits for: a skipped test reads `↓ name` in the report, so its name carries `(needs …)`.
 */
export function silentSkips(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (!/\.test\.[cm]?tsx?$/.test(f.file)) continue;
    const source = ts.createSourceFile(f.file, f.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && !inCalleeChain(node) && skipIn(node.expression)) {
        const name = node.arguments[0];
        const text = name && (ts.isStringLiteralLike(name) || ts.isTemplateExpression(name)) ? name.getText(source) : '';
        if (!/\(needs [^)]+\)/.test(text)) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          out.push(`${f.file}:${line}: ${text || '(a name that is not written out)'}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The unit of a file: `packages/x`, `apps/x`, or its top folder (`tests`, `fixtures`, `bench`, …). */
function unitOf(file: string): string {
  const [top, name] = file.split('/');
  return top === 'packages' || top === 'apps' ? `${top}/${name}` : (top as string);
}

/**
 * Each relative import of another unit's `src/` (`../packages/x/src/…`, `../apps/x/src/…`): a test reaches another
 * package through its entries (`@hub/x`, `@hub/x/testing`), an app through its own test harness.
 */
export function srcReachedByPath(files: readonly SourceFile[]): string[] {
  const known = new Set(files.map((f) => f.file));
  const out: string[] = [];
  for (const f of files) {
    for (const spec of specifiersOf(f.text)) {
      if (!spec.startsWith('.')) continue;
      const target = resolveImport(f.file, spec, known);
      if (!target || !/^(packages|apps)\/[^/]+\/src\//.test(target) || unitOf(target) === unitOf(f.file)) continue;
      out.push(`${f.file}: ${spec}`);
    }
  }
  return out;
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents name only what is in the repository (issue 25): every path a doc writes in backticks (`packages/…`,
 * `apps/…`, `tests/…`, …) exists, a `{a,b}` list and a `*` pattern included, and no doc points at a folder outside
 * the repository. docs/reference/ holds copies of outside documents as they were and is not checked.
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOP = /^(packages|apps|tests|docs|bench|fixtures|ops|tooling)\//;

function docs(): string[] {
  const out = ['README.md'];
  for (const group of ['packages', 'apps'])
    for (const name of readdirSync(path.join(root, group)))
      if (existsSync(path.join(root, group, name, 'README.md'))) out.push(`${group}/${name}/README.md`);
  const walk = (dir: string) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory() && rel !== 'docs/reference') walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts`. */
function expand(p: string): string[] {
  const m = /\{([^}]*)\}/.exec(p);
  if (!m) return [p];
  return (m[1] as string).split(',').flatMap((alt) => expand(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length)));
}

/** A path exists, or for a pattern (`publish-*.ts`) some file in its folder matches it. */
function present(p: string): boolean {
  const clean = p.replace(/\/$/, '');
  if (!clean.includes('*')) return existsSync(path.join(root, clean));
  const dir = path.dirname(clean);
  if (dir.includes('*')) return existsSync(path.join(root, dir.slice(0, dir.indexOf('*'))));
  const re = new RegExp(
    `^${path
      .basename(clean)
      .replace(/[.+?^$()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return existsSync(path.join(root, dir)) && readdirSync(path.join(root, dir)).some((n) => re.test(n));
}

/**
 * The paths in a Markdown text that a reader would open in this repository: in backticks, and written bare when they
 * start at a code folder (`docs/…` bare is left alone: other projects' docs folders are cited that way).
 */
function pathsIn(text: string): string[] {
  const out: string[] = [];
  const add = (raw: string) => {
    const p = raw.replace(/[.,:;]+$/, '').split('#')[0] as string;
    if (TOP.test(p) && !/[<…]|\$\{/.test(p)) out.push(...expand(p));
  };
  for (const m of text.matchAll(/`([^`\s]+)`/g)) add(m[1] as string);
  const bare = text.replace(/`[^`\n]*`/g, ' ');
  for (const m of bare.matchAll(/(?<![\w/.@-])((?:packages|apps|tests|bench|fixtures|ops|tooling)\/[\w./*{},-]*[\w*}/])/g))
    add(m[1] as string);
  return out;
}

describe('the documents name only what is in the repository', () => {
  it('every path a doc names exists', () => {
    const missing: string[] = [];
    for (const doc of docs())
      for (const p of pathsIn(readFileSync(path.join(root, doc), 'utf8'))) if (!present(p)) missing.push(`${doc}: ${p}`);
    expect(missing).toEqual([]);
  });

  it('no doc points at a folder outside the repository', () => {
    const outside = docs().filter((doc) => /\.\.\/shared|\/work\//.test(readFileSync(path.join(root, doc), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('reads a list, a pattern and a plain path, and finds one that is not there', () => {
    expect(
      pathsIn('see `packages/objects/src/publish-*.ts`, `apps/node-server/src/{cli,server}.ts`, `tests/gone.ts` and packages/x/y.ts.'),
    ).toEqual([
      'packages/objects/src/publish-*.ts',
      'apps/node-server/src/cli.ts',
      'apps/node-server/src/server.ts',
      'tests/gone.ts',
      'packages/x/y.ts',
    ]);
    expect(['packages/objects/src/publish-*.ts', 'apps/node-server/src/cli.ts', 'tests/gone.ts'].map(present)).toEqual([true, true, false]);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers (docs/contributing.md draws them): every import points down. A package imports only the packages
 * listed for it here, never an app; an app imports packages, never another app. Tests and scripts count too.
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** An app may import every package (they all sit below it); never another app. */
const PACKAGES = [
  'core-index',
  'objects',
  'client',
  'dialect-hf',
  'dialect-oci',
  'mcp',
  'account',
  'node-toolkit',
  'spaces',
  'hub',
  'upstream',
  'model-signing',
];

export const ALLOWED: Record<string, readonly string[]> = {
  'packages/core-index': [],
  'packages/objects': ['core-index'],
  'packages/client': ['core-index'],
  'packages/dialect-hf': ['core-index'],
  'packages/dialect-oci': ['core-index'],
  'packages/mcp': ['core-index'],
  'packages/account': ['core-index'],
  'packages/node-toolkit': ['core-index', 'objects', 'dialect-oci'],
  // the daily crawler: only node-server runs it
  'packages/upstream': ['core-index'],
  // OMS model.sig verification (node:crypto through @sigstore/verify): node-server's index run uses it
  'packages/model-signing': ['core-index'],
  // the bundled spaces are browser apps: they talk to the hub over HTTP only
  'packages/spaces': [],
  'packages/hub': ['core-index', 'objects', 'dialect-hf', 'dialect-oci', 'mcp', 'account'],
  'apps/node-server': PACKAGES,
  'apps/edge': PACKAGES,
};

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === '.wrangler' || name === '.turbo') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

/** Every import of one unit (package or app) that leaves the layers' allowed edges. */
export function violations(unit: string, allowed: readonly string[], sources: Array<{ file: string; text: string }>): string[] {
  const out: string[] = [];
  const own = unit.split('/')[1];
  for (const { file, text } of sources) {
    const rel = path.relative(root, file);
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] as string;
      const hub = /^@hub\/([^/]+)/.exec(spec);
      if (hub) {
        const target = hub[1] as string;
        if (target !== own && !allowed.includes(target))
          out.push(`${rel}: imports @hub/${target} (${unit} may import ${allowed.join(', ') || 'no workspace package'})`);
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const resolved = path.relative(root, path.resolve(path.dirname(file), spec));
      const [top, name] = resolved.split(path.sep);
      if ((top === 'packages' || top === 'apps') && `${top}/${name}` !== unit) {
        out.push(`${rel}: reaches into ${top}/${name} by a relative path (${spec})`);
      }
    }
  }
  return out;
}

describe('architecture: every import points down', () => {
  const units = ['packages', 'apps'].flatMap((top) => readdirSync(path.join(root, top)).map((n) => `${top}/${n}`));

  it('knows every package and app', () => {
    expect(units.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  for (const unit of units) {
    it(`${unit} imports only its allowed packages, and no app`, () => {
      const sources = files(path.join(root, unit)).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
      expect(violations(unit, ALLOWED[unit] ?? [], sources)).toEqual([]);
    });
  }

  it('docs/contributing.md lists these edges, no more and no fewer', () => {
    const doc = readFileSync(path.join(root, 'docs/contributing.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
    const listed: Record<string, string[]> = {};
    for (const m of section.matchAll(/^\| `((?:packages|apps)\/[^`]+)` \| (.+) \|$/gm)) {
      const cell = m[2] as string;
      listed[m[1] as string] =
        cell === 'nothing' ? [] : cell === 'every package' ? [...PACKAGES] : [...cell.matchAll(/`([^`]+)`/g)].map((x) => x[1] as string);
    }
    const sorted = (t: Record<string, readonly string[]>) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, [...v].sort()]));
    expect(sorted(listed)).toEqual(sorted(ALLOWED));
  });

  it('catches an upward, a package-to-app and an app-to-app import', () => {
    const at = (p: string) => path.join(root, p);
    const bad = violations('packages/dialect-hf', ALLOWED['packages/dialect-hf'] ?? [], [
      { file: at('packages/dialect-hf/src/x.test.ts'), text: "import { hubRoutes } from '@hub/hub';" },
      { file: at('packages/dialect-hf/src/y.ts'), text: "import { seed } from '../../../apps/node-server/src/demo.js';" },
    ]);
    expect(bad).toHaveLength(2);
    const app = violations('apps/edge', ALLOWED['apps/edge'] ?? [], [
      { file: at('apps/edge/test/z.test.ts'), text: "const { startTestHub } = await import('../../node-server/test/helpers.js');" },
    ]);
    expect(app).toEqual(['apps/edge/test/z.test.ts: reaches into apps/node-server by a relative path (../../node-server/test/helpers.js)']);
  });
});

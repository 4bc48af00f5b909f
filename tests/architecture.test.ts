import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      // Node-only implementations live under src/node/ behind a `./node` export; tests may use Node.
      if (name === 'node' || name === 'node_modules' || name === 'dist') continue;
      out.push(...sources(p));
    } else if (/\.ts$/.test(name) && !/\.test\.ts$/.test(name) && !p.includes(`${path.sep}testing${path.sep}`)) {
      out.push(p);
    }
  }
  return out;
}

describe('architecture: pure packages stay runtime-neutral', () => {
  // The Node-only packages: node-toolkit (the demo tree, the from-dir builder, the static mirror) and model-signing
  // (OMS verification through node:crypto and @sigstore/verify; only node-server's index run and `hub get` use it).
  const NODE_ONLY = new Set(['node-toolkit', 'model-signing']);
  const pkgs = readdirSync(path.join(root, 'packages')).filter((p) => !NODE_ONLY.has(p));
  it('finds the packages', () => {
    expect(pkgs).toEqual(expect.arrayContaining(['core-index', 'dialect-hf', 'dialect-oci', 'objects', 'mcp', 'account', 'hub']));
  });
  for (const pkg of pkgs) {
    it(`packages/${pkg} imports no node:*, koa or database driver, and reads no process.env`, () => {
      const offenders: string[] = [];
      // the bundled spaces keep their browser sources at the package's top (gguf/, verify/, shared/)
      const src = path.join(root, 'packages', pkg, 'src');
      for (const file of sources(existsSync(src) ? src : path.join(root, 'packages', pkg))) {
        const text = readFileSync(file, 'utf8');
        const rel = path.relative(root, file);
        if (/from\s+['"]node:|require\(\s*['"]node:|import\(\s*['"]node:/.test(text)) offenders.push(`${rel}: node:*`);
        if (/from\s+['"](koa|@koa\/router|better-sqlite3|pg|pino)['"]/.test(text)) offenders.push(`${rel}: host-only module`);
        if (/process\.env/.test(text)) offenders.push(`${rel}: process.env`);
      }
      expect(offenders).toEqual([]);
    });
  }
});

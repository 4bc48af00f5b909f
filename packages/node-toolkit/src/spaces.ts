import { existsSync } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger, ObjectStore } from '@hub/core-index';
import { publishSpace, type SpaceFileInput, type SpacePublishResult, storeSpaceSink } from '@hub/objects';
import { packageDirs } from './package-dirs.js';

/** A space folder that cannot be published as it is (a symbolic link in it). */
export class SpaceDirError extends Error {}

/**
 * Every regular file under `dir`, with its path relative to `dir` (`/`-separated). Dot files and
 * folders (`.git`, `.DS_Store`) are left out; a symbolic link is refused rather than followed.
 */
export async function readSpaceDir(dir: string): Promise<SpaceFileInput[]> {
  const root = path.resolve(dir);
  const out: SpaceFileInput[] = [];
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(root, relPath);
      const st = await lstat(full);
      if (st.isSymbolicLink()) throw new SpaceDirError(`${relPath}: a symbolic link; copy the file into the folder instead`);
      if (st.isDirectory()) await walk(relPath);
      else if (st.isFile()) out.push({ path: relPath, bytes: new Uint8Array(await readFile(full)) });
    }
  }
  await walk('');
  return out;
}

/** The bundled spaces: the folder each is built into (packages/spaces/dist/{name}) and how it is described. */
export const BUNDLED_SPACES = [
  {
    name: 'verify',
    title: 'Verify files',
    about:
      "Pick downloaded files or a folder; they are hashed in the browser (streaming SHA-256) and compared with the SHA-256 the hub's index holds for the model.",
  },
  {
    name: 'gguf',
    title: 'GGUF header',
    about:
      "Reads a model's GGUF header by HTTP Range through the hub's download redirect: architecture, quantisation, context length, parameter count and tensor count.",
  },
] as const;

/** The built bundled spaces (`@hub/spaces` dist), found from this package's source or its build. */
export function bundledSpacesDir(): string | undefined {
  const candidates = packageDirs().flatMap((here) => [
    path.join(here, '..', 'node_modules', '@hub', 'spaces', 'dist'),
    path.join(here, '..', '..', 'spaces', 'dist'),
  ]);
  return candidates.find((c) => existsSync(path.join(c, 'verify', 'index.html')));
}

/**
 * Publish the bundled spaces into a store through the publish route's own checks (the same
 * `publishSpace` an operator's `hub spaces put` runs). Spaces already current are left as they are.
 */
export async function seedSpaces(objects: ObjectStore, log: Logger): Promise<SpacePublishResult[]> {
  const dir = bundledSpacesDir();
  if (!dir) {
    log.warn({ event: 'spaces-not-built' }, 'the bundled spaces are not built (pnpm build); no spaces seeded');
    return [];
  }
  const sink = storeSpaceSink({ objects, log });
  const out: SpacePublishResult[] = [];
  for (const s of BUNDLED_SPACES) {
    const files = await readSpaceDir(path.join(dir, s.name));
    const r = await publishSpace(files, { name: s.name, title: s.title, about: s.about }, sink);
    log.info({ event: 'space-seeded', name: r.name, root: r.root, files: r.files, changed: r.changed }, 'seeded a bundled space');
    out.push(r);
  }
  return out;
}

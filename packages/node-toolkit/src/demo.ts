import { existsSync } from 'node:fs';
import path from 'node:path';
import { type BuildResult, LoadPackWriter, type Logger, type ObjectStore, type SourceConfig } from '@hub/core-index';
import { buildFromDir } from './from-dir.js';
import { packageDirs } from './package-dirs.js';

/** The source name the demo index records; the running hub points it at the demo mirror. */
export const DEMO_SOURCE = 'demo-mirror';
/** How the demo source is shown (`svc.sources`, the site, the health page). */
const DEMO_DISPLAY = 'Demo mirror';

/**
 * The demo mirror as a configured source (the one entry node-server, the edge's scripts and the tests give a hub),
 * at the URL template of a running static mirror; `extra` adds a probe file or the like.
 */
export function demoSource(template: string, extra: Partial<SourceConfig> = {}): SourceConfig {
  return { name: DEMO_SOURCE, display: DEMO_DISPLAY, token: 'demo', kind: 'http', url: template, ...extra };
}

/** The demo index is built with a fixed date, so its addresses are the same on every machine. */
export const DEMO_DATE = '2026-11-22';

/** The bundled demo tree (`packages/node-toolkit/demo/tree`), found from the built or the source file. */
export function demoTreeDir(): string {
  const dirs = packageDirs();
  for (const here of dirs) {
    for (const candidate of [path.join(here, '..', 'demo', 'tree'), path.join(here, '..', '..', 'demo', 'tree')]) {
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error(`The bundled demo tree is missing (looked beside ${dirs.join(' and ')}).`);
}

/** Build the bundled demo index into an object store. */
export async function seedDemo(objects: ObjectStore, log?: Logger): Promise<BuildResult> {
  const dir = demoTreeDir();
  // The demo day has its index pages too, so either store (whole or paged) serves it on either host.
  const pack = new LoadPackWriter();
  const result = await buildFromDir(objects, {
    onObject: pack.add,
    pages: pack,
    dir,
    sources: [{ name: DEMO_SOURCE }],
    date: DEMO_DATE,
    display: () => DEMO_DISPLAY,
    ...(log ? { log } : {}),
  });
  log?.info({ catalog: result.catalog, models: result.models, files: result.files, tree: dir }, 'seeded the bundled demo index');
  return result;
}

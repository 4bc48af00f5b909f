import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders this package's own files (the demo tree, the built spaces) are looked for from: the folder of this
 * module (the package's dist/ or src/), and the installed package as the importing app resolves it, for when this
 * code is bundled into an app (the `hub` binary inlines it into apps/node-server/dist).
 */
export function packageDirs(): string[] {
  const dirs = [path.dirname(fileURLToPath(import.meta.url))];
  try {
    dirs.push(path.dirname(fileURLToPath(import.meta.resolve('@hub/node-toolkit'))));
  } catch {
    // not resolvable from here (a runtime without import.meta.resolve, or not installed beside the app)
  }
  return dirs;
}

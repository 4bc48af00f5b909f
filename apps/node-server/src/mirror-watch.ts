import { type FSWatcher, watch } from 'node:fs';
import { type Logger, MIRROR_MANIFEST } from '@hub/core-index';

/**
 * Call `changed` (once per burst) whenever the manifest of the mirror folder `dir` is rewritten: `hub mirror verify`
 * moving a damaged file aside, or `hub mirror pull` adding files, on the folder a running hub serves. The hub then
 * re-reads what the mirror holds at once, instead of redirecting to a file that is gone until the next probe round.
 * A folder that cannot be watched is logged and left to the probe rounds.
 */
export function watchMirrorManifest(dir: string, changed: () => void, log: Logger): { close(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  try {
    // The manifest is written to a temporary file and renamed over manifest.json: watch the folder, not the file.
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name !== MIRROR_MANIFEST) return;
      clearTimeout(timer);
      timer = setTimeout(changed, 50);
    });
    watcher.on('error', (e) =>
      log.warn({ err: e.message, folder: dir }, 'the mirror folder is no longer watched; probe rounds re-read it'),
    );
  } catch (e) {
    log.warn({ err: (e as Error).message, folder: dir }, 'the mirror folder cannot be watched; probe rounds re-read it');
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isModelId, type MissingLog } from '@hub/core-index';

/**
 * Models asked for that the index lacks, kept for the next index run: one id per line in
 * `missing.txt`, deduplicated (case-insensitive) and bounded.
 *
 * Several processes may share the data folder (issue 41): each line is one `write` to a file opened with
 * O_APPEND (an id is at most a few hundred bytes), so lines from different processes never interleave or overwrite
 * each other on a local file system; before appending, a process reads what the others added since it last looked
 * (the file grew), so an id another process recorded is not added again. Two processes recording the same new id
 * at the same instant may both add it; every reader (this class, the index run) folds duplicates.
 */
export class FileMissingLog implements MissingLog {
  private readonly file: string;
  private ids = new Map<string, string>();
  /** How many bytes of the file `ids` holds. */
  private seen = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly max = 10_000,
  ) {
    this.file = path.join(dataDir, 'missing.txt');
  }

  /** Fold in what the file holds beyond what this process has seen (all of it, the first time). */
  private async catchUp(): Promise<Map<string, string>> {
    const size = (await stat(this.file).catch(() => undefined))?.size ?? 0;
    if (size === this.seen) return this.ids;
    let text = '';
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      // no file yet
    }
    const ids = new Map<string, string>();
    for (const line of text.split('\n')) {
      const id = line.trim();
      // A line that is not an id (interleaved writes on a network file system) is dropped.
      if (isModelId(id) && !ids.has(id.toLowerCase())) ids.set(id.toLowerCase(), id);
    }
    this.ids = ids;
    this.seen = Buffer.byteLength(text);
    return ids;
  }

  record(id: string): Promise<void> {
    if (!isModelId(id)) return Promise.resolve();
    const p = this.chain.then(async () => {
      const key = id.toLowerCase();
      if (this.ids.has(key)) return;
      const ids = await this.catchUp();
      if (ids.has(key) || ids.size >= this.max) return;
      ids.set(key, id);
      await mkdir(path.dirname(this.file), { recursive: true });
      const line = `${id}\n`;
      await appendFile(this.file, line);
      // What this process wrote is known; another process's lines in between are read on the next catch-up.
      this.seen += Buffer.byteLength(line);
    });
    this.chain = p.catch(() => {});
    return p;
  }

  async list(): Promise<string[]> {
    await this.chain;
    return [...(await this.catchUp()).values()];
  }
}

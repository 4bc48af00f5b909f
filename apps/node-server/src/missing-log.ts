import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isModelId, type MissingLog } from '@hub/core-index';

/**
 * Models asked for that the index lacks, kept for the next index run: one id per line in
 * `missing.txt`, deduplicated (case-insensitive) and bounded.
 */
export class FileMissingLog implements MissingLog {
  private readonly file: string;
  private ids: Map<string, string> | undefined;
  private loading: Promise<void> | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly max = 10_000,
  ) {
    this.file = path.join(dataDir, 'missing.txt');
  }

  private async load(): Promise<Map<string, string>> {
    if (this.ids) return this.ids;
    this.loading ??= (async () => {
      const ids = new Map<string, string>();
      try {
        for (const line of (await readFile(this.file, 'utf8')).split('\n')) {
          const id = line.trim();
          if (id) ids.set(id.toLowerCase(), id);
        }
      } catch {
        // no file yet
      }
      this.ids = ids;
    })();
    await this.loading;
    return this.ids ?? new Map();
  }

  record(id: string): Promise<void> {
    if (!isModelId(id)) return Promise.resolve();
    const p = this.chain.then(async () => {
      const ids = await this.load();
      const key = id.toLowerCase();
      if (ids.has(key) || ids.size >= this.max) return;
      ids.set(key, id);
      await mkdir(path.dirname(this.file), { recursive: true });
      await appendFile(this.file, `${id}\n`);
    });
    this.chain = p.catch(() => {});
    return p;
  }

  async list(): Promise<string[]> {
    await this.chain;
    return [...(await this.load()).values()];
  }
}

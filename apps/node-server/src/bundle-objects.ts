/**
 * A bundle's objects, a line at a time (design 10.3, core-index's bundle-schema.ts): the object list of a v2 bundle
 * (`objects.jsonl`, one object a line) written as the objects come and read back in steps of {@link LIST_READ_BYTES},
 * and where each object's bytes are in the bundle folder. Nothing here holds the whole list, so `hub bundle create`
 * and `hub bundle import` take bounded memory whatever the size of the index.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE_FORMAT_V1, BUNDLE_OBJECTS_FILE, type Bundle, type BundleObject, BundleObjectSchema, type BundleV1 } from '@hub/core-index';

/** What the object list is read by at a time; a line longer than this is refused (a line is about 150 bytes). */
export const LIST_READ_BYTES = 64 * 1024;

/** A bundle that cannot be taken: the message is one line naming what is wrong (the object, the line). */
export class BundleError extends Error {}

/** The file of an object's bytes in a bundle folder: `objects/<2 hex>/<64 hex>` (v2), `objects/<64 hex>` (v1). */
export function objectFile(dir: string, address: string, format: string = ''): string {
  const hex = address.slice('blake3:'.length);
  return format === BUNDLE_FORMAT_V1 ? path.join(dir, 'objects', hex) : path.join(dir, 'objects', hex.slice(0, 2), hex);
}

/**
 * Writes the object list as the objects come: to `objects.jsonl.partial`, in steps of {@link LIST_READ_BYTES}, hashed
 * on the way; {@link finish} makes it durable and gives it its name (a kill leaves only the partial file).
 */
export class ObjectListWriter {
  private readonly hash = createHash('sha256');
  private pending = '';
  private count = 0;
  private constructor(
    private readonly file: string,
    private readonly fh: Awaited<ReturnType<typeof open>>,
  ) {}

  static async create(dir: string): Promise<ObjectListWriter> {
    const file = path.join(dir, BUNDLE_OBJECTS_FILE);
    return new ObjectListWriter(file, await open(`${file}.partial`, 'w'));
  }

  async add(o: BundleObject): Promise<void> {
    this.pending += `${JSON.stringify({ address: o.address, kind: o.kind, media_type: o.media_type })}\n`;
    this.count++;
    if (this.pending.length >= LIST_READ_BYTES) await this.write();
  }

  private async write() {
    const bytes = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    this.hash.update(bytes);
    await this.fh.write(bytes);
  }

  /** The list written whole (fsync, rename): its line count and SHA-256, as `bundle.json` names them. */
  async finish(): Promise<Bundle['objects']> {
    await this.write();
    await this.fh.sync();
    await this.fh.close();
    await rename(`${this.file}.partial`, this.file);
    return { file: BUNDLE_OBJECTS_FILE, count: this.count, sha256: this.hash.digest('hex') };
  }

  /** Close without naming the list (the run failed; the next one writes it again). */
  async abandon(): Promise<void> {
    await this.fh.close().catch(() => {});
  }
}

/** Fan-out folders made once per run, not once per object. */
export function folderMaker(): (file: string) => Promise<void> {
  const made = new Set<string>();
  return async (file) => {
    const dir = path.dirname(file);
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true });
    made.add(dir);
  };
}

/** The lines of a file read {@link LIST_READ_BYTES} at a time (the last may lack its newline); each chunk to `onBytes`. */
async function* fileLines(file: string, onBytes: (b: Uint8Array) => void): AsyncGenerator<string> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(file, 'r');
  } catch {
    throw new BundleError(`${file} is missing: the bundle is not complete`);
  }
  try {
    const buffer = Buffer.alloc(LIST_READ_BYTES);
    let carry: Buffer = Buffer.alloc(0);
    let line = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buffer, 0, LIST_READ_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      onBytes(chunk);
      let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
        line++;
        yield data.toString('utf8', 0, nl);
        data = data.subarray(nl + 1);
      }
      if (data.length > LIST_READ_BYTES)
        throw new BundleError(`${BUNDLE_OBJECTS_FILE} line ${line + 1}: longer than ${LIST_READ_BYTES} bytes; the bundle is damaged`);
      carry = Buffer.from(data); // a copy: `buffer` is read into again
    }
    if (carry.length > 0) yield carry.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** A bundle's objects in list order, each with where its bytes are. */
export interface BundleObjects {
  count: number;
  entries(): AsyncGenerator<BundleObject & { file: string }>;
  /** Read the whole list once, as {@link entries} checks it (its lines, their count, its SHA-256). */
  check(): Promise<void>;
}

/**
 * The objects of a parsed bundle: a v1 bundle's array, or a v2 bundle's list read a line at a time, each line checked
 * against the schema and the whole list against the line count and SHA-256 `bundle.json` gives (at its end, before
 * the caller goes on: a damaged or cut list throws {@link BundleError} naming the line or the list).
 */
export function bundleObjects(dir: string, bundle: Bundle | BundleV1): BundleObjects {
  if (bundle.format === BUNDLE_FORMAT_V1) {
    const list = bundle.objects;
    return {
      count: list.length,
      async *entries() {
        for (const o of list) yield { ...o, file: objectFile(dir, o.address, BUNDLE_FORMAT_V1) };
      },
      check: async () => {}, // checked with bundle.json
    };
  }
  const named = bundle.objects;
  return {
    count: named.count,
    async check() {
      for await (const o of this.entries()) void o;
    },
    async *entries() {
      const hash = createHash('sha256');
      let n = 0;
      for await (const text of fileLines(path.join(dir, named.file), (b) => hash.update(b))) {
        n++;
        if (n > named.count)
          throw new BundleError(`${named.file}: more than the ${named.count} lines bundle.json gives; the bundle is damaged`);
        let parsed: ReturnType<typeof BundleObjectSchema.safeParse>;
        try {
          parsed = BundleObjectSchema.safeParse(JSON.parse(text));
        } catch {
          throw new BundleError(`${named.file} line ${n}: not JSON; the bundle is damaged`);
        }
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new BundleError(
            `${named.file} line ${n}: ${issue?.path.join('.') || 'the line'}: ${issue?.message}; the bundle is damaged`,
          );
        }
        yield { ...parsed.data, file: objectFile(dir, parsed.data.address, bundle.format) };
      }
      if (n !== named.count) throw new BundleError(`${named.file}: ${n} lines, bundle.json gives ${named.count}; the bundle is damaged`);
      const sha256 = hash.digest('hex');
      if (sha256 !== named.sha256)
        throw new BundleError(
          `${named.file}: its bytes hash to sha256:${sha256}, bundle.json gives sha256:${named.sha256}; the bundle is damaged`,
        );
    },
  };
}

import type { Address } from './blake3.js';
import { LOAD_PACK_KIND, LOAD_PACK_VERSION, type LoadPackHead, type PackDigest } from './load-pack-format.js';
import type { FileRecord, ModelObject, ModelRow, SourceObject } from './schemas.js';
import type { IndexedModel } from './store-types.js';

const decoder = new TextDecoder();

/** Entries handled between two turns of the event loop while a pack is read (a running hub keeps answering). */
const YIELD_EVERY = 2000;
const yieldTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The models of a load pack and what the index needs of the pack beyond them. */
export interface PackedIndex {
  head: LoadPackHead;
  models: IndexedModel[];
  /** SHA-256 → positions (browse order) of the models holding a file with it, built on first use */
  shaIndex: () => Map<string, number[]>;
}

/**
 * Read a load pack (see `loadPackBytes`): 'damaged' when it does not match its digest, is not a version
 * {@link LOAD_PACK_VERSION} pack, or its sections do not add up (changed behind the hub's back, or written by another
 * version: the caller verifies in full); 'foreign' when it is another catalog's. Only the head and the models section
 * are read now; each model's row and object are parsed from the payload the first time they are asked for.
 */
export async function readLoadPack(
  bytes: Uint8Array,
  catalogAddress: Address,
  digest: PackDigest,
): Promise<PackedIndex | 'damaged' | 'foreign'> {
  const newline = bytes.indexOf(10);
  if (newline === -1) return 'damaged';
  const body = bytes.subarray(newline + 1);
  if ((await digest(body)) !== decoder.decode(bytes.subarray(0, newline))) return 'damaged';
  await yieldTurn();
  const headEnd = body.indexOf(10);
  if (headEnd === -1) return 'damaged';
  let head: LoadPackHead;
  try {
    head = JSON.parse(decoder.decode(body.subarray(0, headEnd))) as LoadPackHead;
  } catch {
    return 'damaged';
  }
  if (head?.kind !== LOAD_PACK_KIND || head.version !== LOAD_PACK_VERSION || !Array.isArray(head.sections)) return 'damaged';
  if (head.catalog !== catalogAddress) return 'foreign';
  const [m, r, h, p] = head.sections;
  const at = headEnd + 1;
  if (at + m + r + h + p !== body.length) return 'damaged';
  const modelsText = decoder.decode(body.subarray(at, at + m));
  const rows = new RowsSection(body.subarray(at + m, at + m + r), head.models);
  const shasBytes = body.subarray(at + m + r, at + m + r + h);
  const payload = body.subarray(at + m + r + h);
  const models: IndexedModel[] = [];
  let from = 0;
  while (from < modelsText.length) {
    const end = modelsText.indexOf('\n', from);
    if (end === -1) return 'damaged';
    const fields = modelsText.slice(from, end).split('\t');
    if (fields.length !== 6) return 'damaged';
    const [id, address, offset, length, weightBytes, refs] = fields as [string, string, string, string, string, string];
    const place = Number(offset);
    const size = Number(length);
    const weight = Number(weightBytes);
    if (!isCount(place) || !isCount(size) || !isCount(weight) || place + size > payload.length) return 'damaged';
    const n = models.length;
    models.push(new PackedModel(payload, rows, n, id, address as Address, place, size, weight, refs));
    from = end + 1;
    if (models.length % YIELD_EVERY === 0) await yieldTurn();
  }
  if (models.length !== head.models) return 'damaged';
  return { head, models, shaIndex: () => shaIndexOf(shasBytes, models.length) };
}

/** A byte offset, length or count as the writer writes it. */
const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

/** SHA-256 → positions of the models holding it, from the pack's shas section (one line per model). */
function shaIndexOf(bytes: Uint8Array, count: number): Map<string, number[]> {
  const text = decoder.decode(bytes);
  const index = new Map<string, number[]>();
  let from = 0;
  for (let i = 0; i < count; i++) {
    const end = text.indexOf('\n', from);
    if (end === -1) break;
    const line = text.slice(from, end);
    from = end + 1;
    if (line === '') continue;
    for (const sha of line.split(',')) {
      const at = index.get(sha);
      if (!at) index.set(sha, [i]);
      else if (at[at.length - 1] !== i) at.push(i);
    }
  }
  return index;
}

/**
 * The pack's rows section (one catalog row per line, browse order): decoded and split in one piece the first time
 * any row is asked for (one decode instead of one per row), each row parsed when it is asked for.
 */
class RowsSection {
  private lines: string[] | undefined;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly count: number,
  ) {}

  row(n: number): ModelRow {
    if (!this.lines) {
      const text = decoder.decode(this.bytes);
      const lines = new Array<string>(this.count);
      let from = 0;
      for (let i = 0; i < this.count; i++) {
        const end = text.indexOf('\n', from);
        if (end === -1) break;
        lines[i] = text.slice(from, end);
        from = end + 1;
      }
      this.lines = lines;
    }
    return JSON.parse(this.lines[n] ?? 'null') as ModelRow;
  }
}

function parseAt<T>(payload: Uint8Array, offset: number, length: number): T {
  return JSON.parse(decoder.decode(payload.subarray(offset, offset + length))) as T;
}

const byPath = (a: FileRecord, b: FileRecord) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * One model read from a load pack: its id and address now, its catalog row, model object (files, revision, facts)
 * and source objects parsed on first use and kept. At 100,000 models most objects are never read during a day, so
 * the start neither parses nor keeps them (the pack's bytes are kept instead).
 */
class PackedModel implements IndexedModel {
  private cachedRow: ModelRow | undefined;
  private cachedObject: ModelObject | undefined;
  private cachedFiles: FileRecord[] | undefined;
  private paths: Map<string, FileRecord> | undefined;
  private cachedSources: SourceObject[] | undefined;

  rank: number;

  constructor(
    private readonly payload: Uint8Array,
    private readonly rows: RowsSection,
    /** its line in the pack (browse order) */
    private readonly position: number,
    readonly id: string,
    readonly address: Address,
    private readonly offset: number,
    private readonly length: number,
    readonly weightBytes: number,
    /** `<address>@<offset>+<length>` of each source object, comma-separated */
    private readonly refs: string,
  ) {
    this.rank = position;
  }

  get owner(): string {
    return this.id.slice(0, this.id.indexOf('/'));
  }

  get name(): string {
    return this.id.slice(this.id.indexOf('/') + 1);
  }

  get row(): ModelRow {
    this.cachedRow ??= this.rows.row(this.position);
    return this.cachedRow;
  }

  get object(): ModelObject {
    this.cachedObject ??= parseAt<ModelObject>(this.payload, this.offset, this.length);
    return this.cachedObject;
  }

  get revision(): string {
    return this.object.revision;
  }

  get files(): FileRecord[] {
    this.cachedFiles ??= [...this.object.files].sort(byPath);
    return this.cachedFiles;
  }

  file(path: string): FileRecord | undefined {
    this.paths ??= new Map(this.files.map((f) => [f.path, f] as const));
    return this.paths.get(path);
  }

  private sourceRefs(): string[] {
    return this.refs === '' ? [] : this.refs.split(',');
  }

  get sources(): SourceObject[] {
    this.cachedSources ??= this.sourceRefs().map((ref) => {
      const at = ref.indexOf('@');
      const plus = ref.indexOf('+', at);
      return parseAt<SourceObject>(this.payload, Number(ref.slice(at + 1, plus)), Number(ref.slice(plus + 1)));
    });
    return this.cachedSources;
  }

  get sourceAddresses(): Address[] {
    return this.sourceRefs().map((ref) => ref.slice(0, ref.indexOf('@')) as Address);
  }
}

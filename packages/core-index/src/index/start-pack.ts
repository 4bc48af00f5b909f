import { type Address, addressOf } from './blake3.js';
import { ModelObjectSchema, SourceObjectSchema } from './schemas.js';

/** The kind named inside a load pack (see `LoadPackStorage` in index-store.ts). */
export const LOAD_PACK_KIND = 'model-hub.load-pack';

/**
 * The model and source objects of a catalog as a builder made them, for the load pack the first start reads (so a
 * start after a build redoes nothing: the builder hashed every object when it wrote it). Give {@link add} to
 * `buildIndex` as `onObject`; each object is schema-checked as it is added (what a first start would check), and one
 * that does not match is recorded in `fault`: the caller then writes no pack and the start verifies in full.
 */
export class StartPack {
  readonly models = new Map<string, Uint8Array>();
  readonly sources = new Map<string, Uint8Array>();
  fault: string | undefined;

  readonly add = (kind: BuiltObjectKind, address: Address, value: unknown, bytes: Uint8Array): void => {
    const checked = (kind === 'model-hub.model' ? ModelObjectSchema : SourceObjectSchema).safeParse(value);
    if (!checked.success) this.fault ??= `${kind} ${address} does not match its schema: ${checked.error.message.slice(0, 300)}`;
    (kind === 'model-hub.model' ? this.models : this.sources).set(address, bytes);
  };

  /**
   * The pack blob for `catalogAddress`: `<BLAKE3 address of the body>\n<body>` (see {@link LoadPackStorage}). The body
   * is one JSON document `{kind, catalog, models, sources}` assembled from each object's JSON bytes (never
   * re-serialised), one entry per line, so a load can parse it a line at a time between turns of the event loop:
   *
   *     {"kind":"model-hub.load-pack","catalog":"<address>","models":{
   *     "<address>":<model object>,
   *     …
   *     },"sources":{
   *     "<address>":<source object>
   *     }}
   */
  bytes(catalogAddress: Address): Uint8Array {
    const encoder = new TextEncoder();
    const parts: Uint8Array[] = [
      encoder.encode(`{"kind":${JSON.stringify(LOAD_PACK_KIND)},"catalog":${JSON.stringify(catalogAddress)},"models":{`),
    ];
    for (const [name, map] of [
      ['models', this.models],
      ['sources', this.sources],
    ] as const) {
      if (name === 'sources') parts.push(encoder.encode('\n},"sources":{'));
      let first = true;
      for (const [address, json] of map) {
        // JSON bytes hold no raw line break (JSON escapes them in strings), so each entry is exactly one line.
        parts.push(encoder.encode(`${first ? '\n' : ',\n'}${JSON.stringify(address)}:`), json);
        first = false;
      }
    }
    parts.push(encoder.encode('\n}}'));
    let length = 0;
    for (const p of parts) length += p.length;
    const body = new Uint8Array(length);
    let at = 0;
    for (const p of parts) {
      body.set(p, at);
      at += p.length;
    }
    const head = encoder.encode(`${addressOf(body)}\n`);
    const out = new Uint8Array(head.length + body.length);
    out.set(head);
    out.set(body, head.length);
    return out;
  }
}

/** The kinds of object a builder reports to `onObject` (and {@link StartPack.add}). */
export type BuiltObjectKind = 'model-hub.model' | 'model-hub.source';

import { addressOf, canonicalBytes, type ObjectMetadata, sha256Hex } from '@hub/core-index';
import { CHUNK_BYTES, CHUNK_KIND, CHUNKED_FORMAT, CHUNKED_KIND, type ChunkedRecord } from './publish-routes.js';

export interface PublishOptions {
  kind: string;
  mediaType: string;
  filename?: string;
  /** Chunk size for large payloads (default 16 MiB; also the threshold). */
  chunkBytes?: number;
}

export interface PublishResult {
  /** The address to hand out: the object itself, or the chunked record joining the chunks. */
  address: string;
  meta: ObjectMetadata;
  created: boolean;
  /** Chunk addresses, when the payload went as chunks. */
  chunks?: string[];
}

export class PublishError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

async function post(
  base: string,
  token: string,
  bytes: Uint8Array,
  kind: string,
  mediaType: string,
  filename: string | undefined,
  f: typeof fetch,
): Promise<{ meta: ObjectMetadata; created: boolean }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': mediaType, 'x-object-kind': kind };
  if (filename) headers['x-object-filename'] = filename;
  const res = await f(`${base}/api/v1/objects`, { method: 'POST', headers, body: bytes as BodyInit });
  const text = await res.text();
  let body: { code?: string; message?: string } & Partial<ObjectMetadata> = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported below
  }
  if (res.status !== 200 && res.status !== 201) {
    throw new PublishError(
      `POST ${base}/api/v1/objects: ${res.status} ${body.code ?? ''} ${body.message ?? text.slice(0, 200)}`.trim(),
      res.status,
      body.code,
    );
  }
  return { meta: body as ObjectMetadata, created: res.status === 201 };
}

/**
 * Publish bytes to a hub's object dialect. Payloads over 16 MiB go as 16 MiB `model-hub.chunk`
 * objects plus a `model-hub.chunked` record naming them in order, with the size, SHA-256 and BLAKE3
 * address of the joined bytes; the record's address is returned. Each returned address is checked
 * against the bytes sent.
 */
export async function publishObject(
  url: string,
  token: string,
  bytes: Uint8Array,
  options: PublishOptions,
  f: typeof fetch = fetch,
): Promise<PublishResult> {
  const base = url.replace(/\/+$/, '');
  const size = options.chunkBytes ?? CHUNK_BYTES;
  if (bytes.byteLength <= size) {
    const r = await post(base, token, bytes, options.kind, options.mediaType, options.filename, f);
    const expected = addressOf(bytes);
    if (r.meta.id !== expected) throw new PublishError(`the hub named ${r.meta.id}, the bytes hash to ${expected}`, 502);
    return { address: r.meta.id, ...r };
  }
  const chunks: string[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += size) {
    const piece = bytes.subarray(offset, Math.min(offset + size, bytes.byteLength));
    const r = await post(base, token, piece, CHUNK_KIND, 'application/octet-stream', undefined, f);
    const expected = addressOf(piece);
    if (r.meta.id !== expected)
      throw new PublishError(`chunk ${chunks.length}: the hub named ${r.meta.id}, the bytes hash to ${expected}`, 502);
    chunks.push(r.meta.id);
  }
  const record: ChunkedRecord = {
    kind: CHUNKED_KIND,
    format: CHUNKED_FORMAT,
    object_kind: options.kind,
    media_type: options.mediaType,
    filename: options.filename ?? null,
    size: bytes.byteLength,
    sha256: sha256Hex(bytes),
    blake3: addressOf(bytes),
    chunk_bytes: size,
    chunks,
  };
  const r = await post(base, token, canonicalBytes(record), CHUNKED_KIND, 'application/json', undefined, f);
  return { address: r.meta.id, ...r, chunks };
}

/**
 * Fetch an object by address and check it; a `model-hub.chunked` record is followed: every chunk is
 * fetched and checked, and the joined bytes must match the record's size, SHA-256 and BLAKE3.
 */
export async function fetchObject(
  url: string,
  address: string,
  f: typeof fetch = fetch,
): Promise<{ bytes: Uint8Array; kind: string; mediaType: string }> {
  const base = url.replace(/\/+$/, '');
  const get = async (a: string) => {
    const res = await f(`${base}/api/v1/objects/${a}`);
    if (res.status !== 200) throw new PublishError(`GET ${a}: ${res.status}`, res.status);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (addressOf(bytes) !== a) throw new PublishError(`GET ${a}: the bytes hash to ${addressOf(bytes)}`, 502);
    return { bytes, kind: res.headers.get('x-object-kind') ?? '', mediaType: res.headers.get('content-type') ?? '' };
  };
  const top = await get(address);
  if (top.kind !== CHUNKED_KIND) return top;
  const record = JSON.parse(new TextDecoder().decode(top.bytes)) as ChunkedRecord;
  if (record.format !== CHUNKED_FORMAT || !Array.isArray(record.chunks))
    throw new PublishError(`${address} is not a ${CHUNKED_FORMAT} record`, 502);
  const out = new Uint8Array(record.size);
  let offset = 0;
  for (const c of record.chunks) {
    const part = await get(c);
    if (offset + part.bytes.byteLength > record.size) throw new PublishError(`${address}: chunks exceed the recorded size`, 502);
    out.set(part.bytes, offset);
    offset += part.bytes.byteLength;
  }
  if (offset !== record.size) throw new PublishError(`${address}: chunks hold ${offset} bytes, the record says ${record.size}`, 502);
  if (addressOf(out) !== record.blake3 || sha256Hex(out) !== record.sha256)
    throw new PublishError(`${address}: the joined bytes do not match the record`, 502);
  return { bytes: out, kind: record.object_kind, mediaType: record.media_type };
}

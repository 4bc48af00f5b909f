/**
 * The code of `hub buckets put` and `hub buckets get` (declared in cli-buckets.ts, which imports this file when one of
 * them runs): push an OCI image layout to a bucket, or pull one into a layout, through the hub's OCI routes (the same
 * any OCI client uses). Every byte pulled is checked against its digest.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { namingFetch, sha256File } from '@hub/client/get';
import { MANIFEST_TYPES, referencedDigests } from '@hub/dialect-oci';
import { CliError, hubUrlOf, UsageError } from './cli-framework.js';

/** Every request of the bucket commands: one that gets no answer names its URL. */
const fetch = namingFetch(globalThis.fetch);

/** Blobs up to this size go in one request; larger ones in chunks of this size. */
const CHUNK = 16 * 1024 * 1024;
const DIGEST = /^sha256:([0-9a-f]{64})$/;

interface Descriptor {
  mediaType?: string;
  digest: string;
  size: number;
}

function blobPath(dir: string, digest: string): string {
  const m = DIGEST.exec(digest);
  if (!m) throw new CliError(`${digest} is not a sha256 digest`);
  return path.join(dir, 'blobs', 'sha256', m[1] as string);
}

/** The hub refused a request of the push (exit 1, unlike a usage error). */
class PushRefused extends Error {}

async function check(res: Response, what: string): Promise<void> {
  if (res.ok) return;
  const body = await res.text().catch(() => '');
  let detail = body.slice(0, 300);
  try {
    const e = JSON.parse(body) as { errors?: Array<{ code: string; message: string }> };
    if (e.errors?.[0]) detail = `${e.errors[0].code}: ${e.errors[0].message}`;
  } catch {
    // not JSON
  }
  throw new PushRefused(`${what}: HTTP ${res.status} ${detail}`.trim());
}

/** Push one blob (skipped when the bucket holds it): whole up to 16 MiB, else POST, PATCH chunks, PUT. */
async function pushBlob(base: string, repo: string, dir: string, digest: string, auth: Record<string, string>): Promise<'sent' | 'held'> {
  if ((await fetch(`${base}/v2/${repo}/blobs/${digest}`, { method: 'HEAD' })).ok) return 'held';
  const file = blobPath(dir, digest);
  const size = (await stat(file)).size;
  if (size <= CHUNK) {
    const res = await fetch(`${base}/v2/${repo}/blobs/uploads/?digest=${digest}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: await readFile(file),
    });
    await check(res, `blob ${digest}`);
    return 'sent';
  }
  const start = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: auth });
  await check(start, `start of blob ${digest}`);
  let location = new URL(start.headers.get('location') ?? '', base).href;
  const fh = await open(file, 'r');
  try {
    for (let at = 0; at < size; at += CHUNK) {
      const n = Math.min(CHUNK, size - at);
      const chunk = Buffer.alloc(n);
      await fh.read(chunk, 0, n, at);
      const res = await fetch(location, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/octet-stream', 'content-range': `${at}-${at + n - 1}` },
        body: chunk,
      });
      await check(res, `chunk ${at}-${at + n - 1} of blob ${digest}`);
      location = new URL(res.headers.get('location') ?? location, base).href;
    }
  } finally {
    await fh.close();
  }
  const close = new URL(location);
  close.searchParams.set('digest', digest);
  await check(await fetch(close, { method: 'PUT', headers: auth }), `end of blob ${digest}`);
  return 'sent';
}

/** Push a manifest or index (by digest) after everything it names; returns its digest. */
async function pushManifest(
  base: string,
  repo: string,
  dir: string,
  d: Descriptor,
  auth: Record<string, string>,
  say: (v: Record<string, unknown>) => void,
): Promise<void> {
  const bytes = await readFile(blobPath(dir, d.digest));
  const value = JSON.parse(new TextDecoder().decode(bytes)) as { mediaType?: string; manifests?: Descriptor[] };
  const mediaType = d.mediaType ?? value.mediaType ?? '';
  if (!MANIFEST_TYPES.has(mediaType)) throw new CliError(`${d.digest}: ${mediaType || 'no media type'} is not an OCI manifest or index`);
  const refs = referencedDigests(mediaType, value);
  if (typeof refs === 'string') throw new CliError(`${d.digest}: ${refs}`);
  if (value.manifests) {
    for (const m of value.manifests) await pushManifest(base, repo, dir, m, auth, say);
  } else {
    for (const digest of refs) say({ event: 'blob', digest, outcome: await pushBlob(base, repo, dir, digest, auth) });
  }
  const res = await fetch(`${base}/v2/${repo}/manifests/${d.digest}`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': mediaType },
    body: bytes,
  });
  await check(res, `manifest ${d.digest}`);
  say({ event: 'manifest', digest: d.digest, mediaType });
}

/** `hub buckets put DIR --name NAME[:TAG] --token TOKEN [--url BASE]`; returns the exit code. */
export async function bucketsPutCommand({
  values,
  positionals,
}: {
  values: { name?: string; token?: string; url?: string };
  positionals: string[];
}): Promise<number> {
  const dir = positionals[0] as string;
  const [name, tag = 'latest'] = (values.name ?? '').split(':');
  if (!name) throw new UsageError('needs --name NAME[:TAG]');
  const token = values.token ?? process.env.HUB_REGISTRY_TOKEN;
  if (!token) throw new UsageError('needs --token TOKEN (or HUB_REGISTRY_TOKEN): a registry token of the hub');
  const base = hubUrlOf(values.url, process.env);
  const repo = `hub/buckets/${name}`;
  const auth = { authorization: `Bearer ${token}` };
  const say = (v: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(v)}\n`);
  let index: { manifests?: Descriptor[] };
  try {
    index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
  } catch (e) {
    throw new CliError(`${dir} is not an OCI image layout (no readable index.json): ${(e as Error).message}`);
  }
  const manifests = index.manifests ?? [];
  if (manifests.length === 0) throw new CliError(`${dir}/index.json names no manifest`);
  try {
    return await push(base, repo, dir, name, tag, manifests, auth, say);
  } catch (e) {
    if (!(e instanceof PushRefused)) throw e;
    process.stderr.write(`hub buckets put: ${e.message}\n`);
    return 1;
  }
}

async function push(
  base: string,
  repo: string,
  dir: string,
  name: string,
  tag: string,
  manifests: Descriptor[],
  auth: Record<string, string>,
  say: (v: Record<string, unknown>) => void,
): Promise<number> {
  for (const m of manifests) await pushManifest(base, repo, dir, m, auth, say);
  // the tag: the one manifest, or an image index of all of them
  let tagged: { bytes: Uint8Array<ArrayBuffer>; mediaType: string };
  if (manifests.length === 1) {
    const only = manifests[0] as Descriptor;
    tagged = {
      bytes: await readFile(blobPath(dir, only.digest)),
      mediaType: only.mediaType ?? 'application/vnd.oci.image.manifest.v1+json',
    };
  } else {
    const mediaType = 'application/vnd.oci.image.index.v1+json';
    tagged = { bytes: new TextEncoder().encode(JSON.stringify({ schemaVersion: 2, mediaType, manifests })), mediaType };
  }
  const res = await fetch(`${base}/v2/${repo}/manifests/${encodeURIComponent(tag)}`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': tagged.mediaType },
    body: tagged.bytes,
  });
  await check(res, `tag ${tag}`);
  say({ event: 'tagged', bucket: name, tag, digest: res.headers.get('docker-content-digest') });
  return 0;
}

/** Everything a pull accepts for a manifest (the types a bucket stores). */
const MANIFEST_ACCEPT = [...MANIFEST_TYPES].join(', ');

/** A pulled answer whose bytes do not match the digest asked for (exit 1). */
class PullMismatch extends Error {}

/** True when `file` exists and hashes to `hex`. */
async function holds(file: string, hex: string): Promise<boolean> {
  try {
    return (await sha256File(file)) === hex;
  } catch {
    return false;
  }
}

/**
 * Fetch one blob or manifest into DIR/blobs/sha256/<hex>: streamed to a temp file while it is hashed, renamed into
 * place only when the SHA-256 is the digest's. Returns whether it was fetched or already held.
 */
async function pullBlob(url: string, dir: string, digest: string, accept?: string): Promise<'fetched' | 'held'> {
  const file = blobPath(dir, digest);
  const hex = digest.slice('sha256:'.length);
  if (await holds(file, hex)) return 'held';
  const res = await fetch(url, accept ? { headers: { accept } } : {});
  await check(res, `GET ${new URL(url).pathname}`);
  if (!res.body) throw new PushRefused(`GET ${new URL(url).pathname}: no body`);
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.partial-${process.pid}`;
  const h = createHash('sha256');
  const out = createWriteStream(tmp);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      h.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    const got = h.digest('hex');
    if (got !== hex) throw new PullMismatch(`${digest}: the bytes received hash to sha256:${got}; nothing kept`);
    await rename(tmp, file);
    return 'fetched';
  } finally {
    out.destroy();
    await rm(tmp, { force: true });
  }
}

/** Pull a manifest or index by digest and everything it names, depth first (blobs before the manifest naming them). */
async function pullManifest(
  base: string,
  repo: string,
  dir: string,
  digest: string,
  say: (v: Record<string, unknown>) => void,
): Promise<void> {
  const outcome = await pullBlob(`${base}/v2/${repo}/manifests/${digest}`, dir, digest, MANIFEST_ACCEPT);
  const value = JSON.parse(await readFile(blobPath(dir, digest), 'utf8')) as { mediaType?: string; manifests?: Descriptor[] };
  const refs = referencedDigests(value.mediaType ?? '', value);
  if (typeof refs === 'string') throw new PullMismatch(`${digest}: ${refs}`);
  if (value.manifests) {
    for (const m of value.manifests) await pullManifest(base, repo, dir, m.digest, say);
  } else {
    for (const d of refs) say({ event: 'blob', digest: d, outcome: await pullBlob(`${base}/v2/${repo}/blobs/${d}`, dir, d) });
  }
  say({ event: 'manifest', digest, outcome });
}

/** `hub buckets get NAME[:TAG] DIR [--url BASE]`; returns the exit code. */
export async function bucketsGetCommand({ values, positionals }: { values: { url?: string }; positionals: string[] }): Promise<number> {
  const [ref, dir] = positionals as [string, string];
  const [name, tag = 'latest'] = ref.split(':');
  if (!name) throw new UsageError('needs NAME[:TAG]');
  const base = hubUrlOf(values.url, process.env);
  const repo = `hub/buckets/${name}`;
  const say = (v: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(v)}\n`);
  try {
    // The tag names a digest (the answer's Docker-Content-Digest); the bytes are then checked against it.
    const head = await fetch(`${base}/v2/${repo}/manifests/${encodeURIComponent(tag)}`, {
      method: 'HEAD',
      headers: { accept: MANIFEST_ACCEPT },
    });
    await check(head, `tag ${tag} of bucket ${name}`);
    const digest = head.headers.get('docker-content-digest') ?? '';
    const mediaType = head.headers.get('content-type') ?? '';
    if (!DIGEST.test(digest)) throw new PushRefused(`tag ${tag}: the hub named no sha256 digest (${JSON.stringify(digest)})`);
    await pullManifest(base, repo, dir, digest, say);
    const size = (await stat(blobPath(dir, digest))).size;
    // A layout any OCI tool reads (skopeo copy oci:DIR:TAG …, oras, umoci), the tag as the ref name.
    await writeFile(path.join(dir, 'oci-layout'), `${JSON.stringify({ imageLayoutVersion: '1.0.0' })}\n`);
    const index = {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [{ mediaType, digest, size, annotations: { 'org.opencontainers.image.ref.name': tag } }],
    };
    await writeFile(path.join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
    say({ event: 'pulled', bucket: name, tag, digest, dir });
    return 0;
  } catch (e) {
    if (!(e instanceof PushRefused) && !(e instanceof PullMismatch)) throw e;
    process.stderr.write(`hub buckets get: ${e.message}\n`);
    return 1;
  }
}

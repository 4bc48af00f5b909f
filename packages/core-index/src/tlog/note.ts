import { sha256 } from '@noble/hashes/sha256';
import { fromBase64, HASH_SIZE, type Hash, toBase64 } from './tlog.js';

/**
 * C2SP signed-note with Ed25519 (signature type 0x01) and C2SP tlog-checkpoint, in the key formats of Go's
 * golang.org/x/mod/sumdb/note: a verifier key is `<name>+<key ID, 8 hex>+<base64(0x01 || public key)>`, a signer key
 * `PRIVATE+KEY+<name>+<key ID>+<base64(0x01 || 32-byte seed)>`. Ed25519 comes from WebCrypto, which Node 20 and
 * workerd both have, so this file runs on every host.
 */

export class NoteError extends Error {}

const ED25519 = 0x01;
const encoder = new TextEncoder();
// PKCS #8 wrapping of a raw Ed25519 seed (RFC 8410): WebCrypto imports private keys only in PKCS #8 or JWK.
const PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

export interface NoteSigner {
  name: string;
  keyId: number;
  /** The matching verifier key, `name+id+base64`. */
  verifierKey: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export interface NoteVerifier {
  name: string;
  keyId: number;
  verify(message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

/** Key names are non-empty and hold no Unicode space and no `+` (C2SP signed-note). */
export function isKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !hasControl(name, false);
}

/** key ID = SHA-256(name || 0x0A || 0x01 || public key)[:4], big-endian. */
export function keyId(name: string, publicKey: Uint8Array): number {
  const n = encoder.encode(name);
  const b = new Uint8Array(n.byteLength + 2 + publicKey.byteLength);
  b.set(n, 0);
  b[n.byteLength] = 0x0a;
  b[n.byteLength + 1] = ED25519;
  b.set(publicKey, n.byteLength + 2);
  const h = sha256(b);
  return (((h[0] as number) << 24) | ((h[1] as number) << 16) | ((h[2] as number) << 8) | (h[3] as number)) >>> 0;
}

/** Any ASCII control character (below U+0020), newline aside when `newlineOk`. */
function hasControl(s: string, newlineOk: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 && !(newlineOk && c === 0x0a)) return true;
  }
  return false;
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0');

function verifierKeyOf(name: string, publicKey: Uint8Array): string {
  return `${name}+${hex8(keyId(name, publicKey))}+${toBase64(new Uint8Array([ED25519, ...publicKey]))}`;
}

/** Split at the first `count - 1` pluses (the base64 key at the end may hold pluses itself), as Go's note does. */
function chop(s: string, count: number): string[] {
  const out: string[] = [];
  let rest = s;
  for (let i = 1; i < count; i++) {
    const at = rest.indexOf('+');
    if (at < 0) return [...out, rest];
    out.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  return [...out, rest];
}

/** A copy in a plain ArrayBuffer, as WebCrypto's types want. */
const own = (b: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(b);

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new NoteError('this runtime has no WebCrypto (crypto.subtle), which Ed25519 notes need');
  return s;
}

/** Parse a verifier key (`name+id+base64`); throws {@link NoteError} naming what is wrong. */
export async function parseVerifierKey(vkey: string): Promise<NoteVerifier> {
  const parts = chop(vkey.trim(), 3);
  const [name, id, b64] = parts;
  if (!name || !isKeyName(name)) throw new NoteError('a verifier key is NAME+KEYID+BASE64 (hub keys generate prints one)');
  const raw = b64 ? fromBase64(b64) : undefined;
  if (!id || !/^[0-9a-f]{8}$/.test(id) || !raw || raw.byteLength !== 33 || raw[0] !== ED25519)
    throw new NoteError('the verifier key is not an Ed25519 key in the note format');
  const publicKey = raw.subarray(1);
  if (keyId(name, publicKey) !== Number.parseInt(id, 16)) throw new NoteError('the verifier key ID does not match its name and key');
  const key = await subtle().importKey('raw', own(publicKey), { name: 'Ed25519' }, false, ['verify']);
  return {
    name,
    keyId: Number.parseInt(id, 16),
    verify: (message, signature) => subtle().verify({ name: 'Ed25519' }, key, own(signature), own(message)),
  };
}

/** Parse a signer key (`PRIVATE+KEY+name+id+base64`); the error never repeats the key. */
export async function parseSignerKey(skey: string): Promise<NoteSigner> {
  const parts = chop(skey.trim(), 5);
  const [p1, p2, name, id, b64] = parts;
  if (p1 !== 'PRIVATE' || p2 !== 'KEY' || !name || !isKeyName(name))
    throw new NoteError('a signing key is PRIVATE+KEY+NAME+KEYID+BASE64 (hub keys generate writes one)');
  const raw = b64 ? fromBase64(b64) : undefined;
  if (!id || !/^[0-9a-f]{8}$/.test(id) || !raw || raw.byteLength !== 33 || raw[0] !== ED25519)
    throw new NoteError('the signing key is not an Ed25519 key in the note format');
  const pkcs8 = new Uint8Array([...PKCS8_PREFIX, ...raw.subarray(1)]);
  const key = await subtle().importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, ['sign']);
  const jwk = await subtle().exportKey('jwk', key);
  const publicKey = fromBase64Url(jwk.x ?? '');
  if (keyId(name, publicKey) !== Number.parseInt(id, 16)) throw new NoteError('the signing key ID does not match its name and key');
  return {
    name,
    keyId: Number.parseInt(id, 16),
    verifierKey: verifierKeyOf(name, publicKey),
    sign: async (message) => new Uint8Array(await subtle().sign({ name: 'Ed25519' }, key, own(message))),
  };
}

/** A new Ed25519 key pair: the signer key (secret) and the verifier key (public). */
export async function generateSignerKey(name: string): Promise<{ signerKey: string; verifierKey: string }> {
  if (!isKeyName(name)) throw new NoteError(`key name "${name.slice(0, 80)}" must be non-empty, without spaces or "+"`);
  const pair = (await subtle().generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await subtle().exportKey('pkcs8', pair.privateKey));
  const seed = pkcs8.subarray(pkcs8.byteLength - 32);
  const publicKey = new Uint8Array(await subtle().exportKey('raw', pair.publicKey));
  const id = hex8(keyId(name, publicKey));
  return {
    signerKey: `PRIVATE+KEY+${name}+${id}+${toBase64(new Uint8Array([ED25519, ...seed]))}`,
    verifierKey: verifierKeyOf(name, publicKey),
  };
}

function fromBase64Url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
  return fromBase64(padded) ?? new Uint8Array(0);
}

/** Sign `text` (ending in a newline) with every signer: the note text, a blank line, one signature line per key. */
export async function signNote(text: string, signers: readonly NoteSigner[]): Promise<string> {
  if (!text.endsWith('\n')) throw new NoteError('note text must end in a newline');
  const message = encoder.encode(text);
  let out = `${text}\n`;
  for (const s of signers) {
    const sig = await s.sign(message);
    const b = new Uint8Array(4 + sig.byteLength);
    new DataView(b.buffer).setUint32(0, s.keyId);
    b.set(sig, 4);
    out += `\u2014 ${s.name} ${toBase64(b)}\n`;
  }
  return out;
}

/**
 * Open a signed note: unknown signatures are ignored, a known key whose signature fails rejects the note, and at
 * least one known key must have signed (C2SP signed-note). Returns the text and the names of the keys that signed.
 */
export async function openNote(note: string, verifiers: readonly NoteVerifier[]): Promise<{ text: string; signedBy: string[] }> {
  if (hasControl(note, true) || note.includes('\ufffd')) throw new NoteError('malformed note: control characters');
  const at = note.lastIndexOf('\n\n');
  if (at < 0) throw new NoteError('malformed note: no blank line before the signatures');
  const text = note.slice(0, at + 1);
  const lines = note.slice(at + 2);
  if (!lines.endsWith('\n')) throw new NoteError('malformed note: the signatures do not end in a newline');
  const signedBy: string[] = [];
  const message = encoder.encode(text);
  const seen = new Set<string>();
  const list = lines.slice(0, -1).split('\n');
  if (list.length > 100) throw new NoteError('malformed note: too many signatures');
  for (const line of list) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    const sig = m ? fromBase64(m[2] as string) : undefined;
    if (!m || !sig || sig.byteLength < 5 || !isKeyName(m[1] as string)) throw new NoteError('malformed note: a bad signature line');
    const name = m[1] as string;
    const id = new DataView(sig.buffer, sig.byteOffset, 4).getUint32(0);
    const v = verifiers.find((k) => k.name === name && k.keyId === id);
    if (!v || seen.has(`${name}+${id}`)) continue;
    seen.add(`${name}+${id}`);
    if (!(await v.verify(message, sig.subarray(4)))) throw new NoteError(`the signature of ${name} (key ${hex8(id)}) does not verify`);
    signedBy.push(name);
  }
  if (signedBy.length === 0) throw new NoteError('the note carries no signature by a known key');
  return { text, signedBy };
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Hash;
}

/** The checkpoint's note text: origin, tree size, base64 root hash, each ending in a newline (C2SP tlog-checkpoint). */
export function formatCheckpoint(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${toBase64(c.root)}\n`;
}

/** Parse checkpoint text (extension lines are allowed and ignored); throws {@link NoteError}. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  const [origin, size, root] = lines;
  if (lines.length < 4 || !origin || !size || !/^(0|[1-9][0-9]{0,15})$/.test(size)) throw new NoteError('malformed checkpoint');
  const hash = root ? fromBase64(root) : undefined;
  if (!hash || hash.byteLength !== HASH_SIZE) throw new NoteError('malformed checkpoint: the root hash is not 32 bytes of base64');
  if (lines.slice(3, -1).some((l) => l === '')) throw new NoteError('malformed checkpoint: an empty extension line');
  const n = Number(size);
  if (!Number.isSafeInteger(n)) throw new NoteError('malformed checkpoint: tree size');
  return { origin, size: n, root: hash };
}

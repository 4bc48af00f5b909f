import { createHash } from 'node:crypto';

/**
 * The signed manifest of an OMS bundle: the in-toto statement inside the DSSE envelope, read as the OMS spec v1.0
 * (section 5) and its historical v0.2 form (section 11) describe it. Pure parsing and the root-digest check; the
 * signature over these bytes is checked elsewhere (envelope.ts) before anything here is believed.
 */

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_V1 = 'https://model_signing/signature/v1.0';
/** v0.2.0 of the reference implementation: file digests in `subject`, no `serialization`. */
export const PREDICATE_V02 = 'https://model_signing/Digests/v0.1';

export interface SignedResource {
  name: string;
  algorithm: string;
  digest: string;
}

export interface SignedManifest {
  form: 'v1.0' | 'v0.2';
  resources: SignedResource[];
  /** `files` or `shards` */
  method: string;
  hashType: string;
  ignorePaths: string[];
}

/** The statement is not a valid OMS statement (bad shape, wrong type, or a root digest its resources do not give). */
export class StatementError extends Error {}

const HEX = /^(?:[0-9a-f]{2})+$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw new StatementError(`${what} is not a non-empty string`);
  return v;
}

function hex(v: unknown, what: string): string {
  const s = text(v, what).toLowerCase();
  if (!HEX.test(s)) throw new StatementError(`${what} is not hexadecimal`);
  return s;
}

/** Reads the DSSE payload as an OMS statement; throws {@link StatementError} on anything the spec does not allow. */
export function parseStatement(payloadType: string, payload: Uint8Array): SignedManifest {
  if (payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw new StatementError(`payload type is ${JSON.stringify(payloadType)}, not ${IN_TOTO_PAYLOAD_TYPE}`);
  let statement: unknown;
  try {
    statement = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    throw new StatementError('the payload is not UTF-8 JSON');
  }
  if (!isObject(statement)) throw new StatementError('the statement is not a JSON object');
  if (statement._type !== STATEMENT_TYPE) throw new StatementError(`statement _type is not ${STATEMENT_TYPE}`);
  if (!Array.isArray(statement.subject) || statement.subject.length === 0) throw new StatementError('the statement has no subject');
  if (statement.predicateType === PREDICATE_V02) return compatManifest(statement.subject);
  if (statement.predicateType !== PREDICATE_V1)
    throw new StatementError(`predicateType ${JSON.stringify(statement.predicateType)} is not an OMS predicate`);
  if (statement.subject.length !== 1) throw new StatementError('an OMS v1.0 statement has exactly one subject');
  const subject = statement.subject[0];
  if (!isObject(subject) || !isObject(subject.digest)) throw new StatementError('the subject has no digest');
  const root = hex(subject.digest.sha256, 'subject digest sha256');
  const predicate = statement.predicate;
  if (!isObject(predicate) || !isObject(predicate.serialization) || !Array.isArray(predicate.resources))
    throw new StatementError('the predicate needs serialization and resources');
  if (predicate.resources.length === 0) throw new StatementError('the predicate lists no resources');
  const s = predicate.serialization;
  const method = text(s.method, 'serialization.method');
  const hashType = text(s.hash_type, 'serialization.hash_type');
  const ignore = s.ignore_paths ?? [];
  if (!Array.isArray(ignore) || ignore.some((p) => typeof p !== 'string'))
    throw new StatementError('serialization.ignore_paths is not a list of strings');
  const hasher = createHash('sha256');
  const resources: SignedResource[] = predicate.resources.map((r: unknown, i: number) => {
    if (!isObject(r)) throw new StatementError(`resource ${i} is not an object`);
    const resource = {
      name: text(r.name, `resource ${i} name`),
      algorithm: text(r.algorithm, `resource ${i} algorithm`),
      digest: hex(r.digest, `resource ${i} digest`),
    };
    hasher.update(Buffer.from(resource.digest, 'hex'));
    return resource;
  });
  // The root digest is SHA-256 over every resource digest's bytes in the listed order (the reference verifier's
  // dsse_payload_to_manifest): a statement whose subject does not match its own resources is refused.
  const computed = hasher.digest('hex');
  if (computed !== root) throw new StatementError(`the root digest ${root} is not the SHA-256 of the listed resources (${computed})`);
  return { form: 'v1.0', resources, method, hashType, ignorePaths: ignore as string[] };
}

function compatManifest(subjects: unknown[]): SignedManifest {
  const resources = subjects.map((s, i) => {
    if (!isObject(s) || !isObject(s.digest)) throw new StatementError(`subject ${i} has no digest`);
    return { name: text(s.name, `subject ${i} name`), algorithm: 'sha256', digest: hex(s.digest.sha256, `subject ${i} digest sha256`) };
  });
  return { form: 'v0.2', resources, method: 'files', hashType: 'sha256', ignorePaths: [] };
}

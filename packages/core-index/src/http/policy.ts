import type { IndexedModel, IndexStore } from '../index/index-store.js';
import { lookUp, whenReady } from '../index/store-types.js';
import { SCAN_LEVELS, type ScanLevel } from '../index/schemas.js';
import { type ErrorShape, errorResponse, type HubResponse, type PolicySubject } from './contract.js';

/**
 * What an operator refuses to serve (design 11.2): files the public host's scanners flagged at a listed level, every
 * file of a revision whose own signature failed, and models that must carry a verified signature by a named identity.
 * One rule: `createHub` applies it before any dialect's handler runs, to the model and file the route names
 * (`Route.subject`); MCP's download tool and SHA256SUMS ask the same function. A refusal is a 403 in the route
 * group's error shape with `X-Error-Code: PolicyRefused` and a message naming the rule; it is never a redirect.
 */
export interface ServePolicy {
  /** refuse files whose scan level is listed (`["unsafe", "suspicious"]`) */
  refuseScanLevels?: ScanLevel[];
  /** refuse every file of a revision whose model.sig `failed` */
  refuseFailedSignatures?: boolean;
  /** models matching `models` (a glob: `*` within a name part, `**` across) must carry this verified signature */
  requireSignature?: Array<{ models: string; identity: string; issuer: string }>;
}

export interface Refusal {
  /** the config key that refused (`policy.requireSignature[0]`) */
  rule: string;
  message: string;
}

export class PolicyConfigError extends Error {}

const LEVELS = new Set<string>(SCAN_LEVELS);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '');

/** The `policy` config block, checked: every wrong value throws one line naming its key. */
export function parsePolicy(value: unknown, where = 'policy'): ServePolicy {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PolicyConfigError(`${where} must be an object.`);
  const v = value as Record<string, unknown>;
  const known = new Set(['refuseScanLevels', 'refuseFailedSignatures', 'requireSignature']);
  for (const k of Object.keys(v))
    if (!known.has(k)) throw new PolicyConfigError(`${where}.${k} is not a policy key (${[...known].join(', ')}).`);
  const out: ServePolicy = {};
  if (v.refuseScanLevels !== undefined) {
    if (!strings(v.refuseScanLevels) || v.refuseScanLevels.some((l) => !LEVELS.has(l)))
      throw new PolicyConfigError(`${where}.refuseScanLevels must be a list of scan levels (${SCAN_LEVELS.join(', ')}).`);
    out.refuseScanLevels = v.refuseScanLevels as ScanLevel[];
  }
  if (v.refuseFailedSignatures !== undefined) {
    if (typeof v.refuseFailedSignatures !== 'boolean')
      throw new PolicyConfigError(`${where}.refuseFailedSignatures must be true or false.`);
    out.refuseFailedSignatures = v.refuseFailedSignatures;
  }
  if (v.requireSignature !== undefined) {
    if (!Array.isArray(v.requireSignature))
      throw new PolicyConfigError(`${where}.requireSignature must be a list of {models, identity, issuer}.`);
    out.requireSignature = v.requireSignature.map((r: unknown, i: number) => {
      const e = r as Record<string, unknown> | null;
      const ok = (k: string) => typeof e?.[k] === 'string' && e[k] !== '';
      if (!e || typeof e !== 'object' || !ok('models') || !ok('identity') || !ok('issuer'))
        throw new PolicyConfigError(`${where}.requireSignature[${i}] needs models (a glob such as "ibm-granite/*"), identity and issuer.`);
      return { models: e.models as string, identity: e.identity as string, issuer: e.issuer as string };
    });
  }
  return out;
}

/** `ibm-granite/*` matches `ibm-granite/granite-3.3-8b-instruct` (case-insensitive, as model ids are looked up). */
export function globMatches(glob: string, id: string): boolean {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i').test(id);
}

/** Is the policy empty (nothing can be refused)? */
export function policyIsEmpty(p: ServePolicy | undefined): boolean {
  return !p || (!p.refuseScanLevels?.length && !p.refuseFailedSignatures && !p.requireSignature?.length);
}

/** Why the policy refuses this subject of this model, or undefined when it does not. */
export function policyRefusal(
  policy: ServePolicy | undefined,
  model: IndexedModel,
  subject: Omit<PolicySubject, 'id'> = {},
): Refusal | undefined {
  if (policyIsEmpty(policy) || !policy) return undefined;
  const sig = model.object.signature;
  for (const [i, r] of (policy.requireSignature ?? []).entries()) {
    if (!globMatches(r.models, model.id)) continue;
    if (sig?.status === 'verified' && sig.identity === r.identity && sig.issuer === r.issuer) continue;
    const has = !sig
      ? 'none'
      : sig.status !== 'verified'
        ? `a signature whose status is ${sig.status}`
        : `a verified signature by ${sig.identity ?? 'an unnamed signer'} (${sig.issuer ?? 'no issuer'})`;
    return {
      rule: `policy.requireSignature[${i}]`,
      message: `Refused by policy.requireSignature[${i}]: models matching ${r.models} must carry a verified model.sig by ${r.identity} (${r.issuer}); ${model.id} at ${model.revision} has ${has}.`,
    };
  }
  if (policy.refuseFailedSignatures && sig?.status === 'failed')
    return {
      rule: 'policy.refuseFailedSignatures',
      message: `Refused by policy.refuseFailedSignatures: the model.sig of ${model.id} at ${model.revision} failed verification (${sig.reason ?? 'see its signature verdict'}), so none of its files is served.`,
    };
  const levels = policy.refuseScanLevels;
  const issues = model.object.scan?.filesWithIssues;
  if (levels?.length && issues?.length && (subject.path !== undefined || subject.sha256 !== undefined)) {
    const paths =
      subject.path !== undefined
        ? [subject.path]
        : model.files.filter((f) => f.sha256 === subject.sha256?.toLowerCase()).map((f) => f.path);
    const hit = issues.find((f) => paths.includes(f.path) && levels.includes(f.level));
    if (hit)
      return {
        rule: 'policy.refuseScanLevels',
        message: `Refused by policy.refuseScanLevels: the public host's scan rates ${hit.path} of ${model.id} at ${model.revision} ${hit.level}.`,
      };
  }
  return undefined;
}

/** The 403 of a refusal, in the route group's error shape. */
export function refusedAnswer(shape: ErrorShape, r: Refusal): HubResponse {
  return errorResponse(shape, 403, 'PolicyRefused', r.message, { 'x-error-code': 'PolicyRefused' });
}

/**
 * The rule before any dialect answers: the route's subject, looked up in today's index, refused or not. A subject
 * the index does not hold passes (the handler answers its 404). Synchronous when nothing can be refused or the
 * index answers synchronously, so an unrefused request pays no extra turn of the event loop.
 */
export function policyGate(
  policy: ServePolicy | undefined,
  index: Pick<IndexStore, 'model' | 'warm'>,
  route: { errors: ErrorShape; subject?: (params: Record<string, string>) => PolicySubject | undefined },
  params: Record<string, string>,
): HubResponse | undefined | Promise<HubResponse | undefined> {
  if (!route.subject || policyIsEmpty(policy)) return undefined;
  const subject = route.subject(params);
  if (!subject) return undefined;
  const decide = (model: IndexedModel | undefined) => {
    const refused = model ? policyRefusal(policy, model, subject) : undefined;
    return refused ? refusedAnswer(route.errors, refused) : undefined;
  };
  // a warm model is decided at once (no promise between the request and its answer)
  return whenReady(lookUp(index, subject.id), decide);
}

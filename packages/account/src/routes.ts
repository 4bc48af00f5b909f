import {
  type CoreDeps,
  describeRoutes,
  errorResponse,
  type HubResponse,
  isModelId,
  json,
  MAX_MODEL_ID_LENGTH,
  type Route,
  type RouteContext,
  readBody,
  recordMissing,
} from '@hub/core-index';
import { ACCOUNT_API } from './api.js';
import type { RateLimiter } from './limiter.js';
import { type AccountRecord, type AccountStore, modelKey } from './store.js';
import { DEFAULT_MAX_TOKEN_LENGTH, type TokenVerifier } from './verify.js';

/** What the account routes need beside {@link CoreDeps}. */
export interface AccountServices {
  store: AccountStore;
  /** Absent when the deployment has no sign-in keys: every route but health answers 503. */
  verifier?: TokenVerifier;
  /** Per-account write limit; reads are never limited. */
  limiter: RateLimiter;
}

export interface AccountDeps extends CoreDeps {
  accounts?: AccountServices;
}

/** Largest JSON body an account route reads. */
export const MAX_ACCOUNT_BODY_BYTES = 64 * 1024;
/** Most ids one saved list holds. */
export const MAX_SAVED = 1000;
/** Most model requests one account may hold. */
export const MAX_REQUESTS_PER_ACCOUNT = 1000;
export const MAX_WALLET_LENGTH = 200;

/** A wallet as a person reports it: an address, a CAIP-10 id or a name; printable, no spaces or quotes. */
const WALLET = /^[A-Za-z0-9][A-Za-z0-9:._@+/=-]*$/;

export function isWallet(w: unknown): w is string {
  return typeof w === 'string' && w.length <= MAX_WALLET_LENGTH && WALLET.test(w);
}

const BAD = (message: string) => errorResponse('hub', 400, 'BadRequest', message);

function notConfigured(): HubResponse {
  return errorResponse(
    'hub',
    503,
    'AccountsNotConfigured',
    'Sign-in is not configured on this deployment; the operator must set account.publicKey in the hub config.',
  );
}

function unauthorized(message: string, error = 'invalid_token'): HubResponse {
  const challenge = error ? `Bearer realm="account", error="${error}"` : 'Bearer realm="account"';
  return errorResponse('hub', 401, 'Unauthorized', message, { 'www-authenticate': challenge });
}

type Ctx<D> = RouteContext<D>;
type Authed = { did: string; services: AccountServices };

/** The bearer token of the request, refusing oversized headers before any parsing. */
function bearer(header: string | null): { token?: string; tooLarge?: boolean } {
  if (!header) return {};
  if (header.length > DEFAULT_MAX_TOKEN_LENGTH + 64) return { tooLarge: true };
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return m?.[1] ? { token: m[1] } : {};
}

async function authenticate<D extends AccountDeps>(ctx: Ctx<D>): Promise<Authed | HubResponse> {
  const services = ctx.deps.accounts;
  if (!services?.verifier) return notConfigured();
  const header = ctx.req.headers.get('authorization');
  const { token, tooLarge } = bearer(header);
  if (tooLarge) {
    return unauthorized(
      `The Authorization header is over ${DEFAULT_MAX_TOKEN_LENGTH} characters; send only the account token the identity provider issued.`,
    );
  }
  if (!token) {
    return unauthorized(
      header
        ? 'The Authorization header is not "Bearer <token>"; send the account token as Authorization: Bearer <token>.'
        : 'This route needs a sign-in: send the account token from the site as Authorization: Bearer <token>.',
      header ? 'invalid_request' : '',
    );
  }
  const result = await services.verifier.verify(token, ctx.deps.now());
  if (!result.ok) {
    // The reason only; never the token.
    ctx.deps.log.debug({ reason: result.reason }, 'account token refused');
    return unauthorized(result.message);
  }
  return { did: result.did, services };
}

async function limitWrite<D extends AccountDeps>(ctx: Ctx<D>, a: Authed): Promise<HubResponse | undefined> {
  const r = await a.services.limiter.take(a.did, ctx.deps.now());
  if (r.ok) return undefined;
  return errorResponse(
    'hub',
    429,
    'TooManyRequests',
    `Too many account writes; wait ${r.retryAfterSeconds} s (Retry-After) and try again.`,
    { 'retry-after': String(r.retryAfterSeconds) },
  );
}

function writeOutcome(status: number | undefined): 'ok' | 'refused' | 'limited' | 'unauthorized' {
  if (status === 401) return 'unauthorized';
  if (status === 429) return 'limited';
  return status !== undefined && status >= 200 && status < 300 ? 'ok' : 'refused';
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Read a JSON object body (64 KiB at most). An empty body gives `{}` when `optional`. */
async function readJsonObject<D>(ctx: Ctx<D>, optional = false): Promise<Record<string, unknown> | unknown[] | HubResponse> {
  const bytes = await readBody(ctx.req, MAX_ACCOUNT_BODY_BYTES);
  if (bytes.byteLength === 0) {
    if (optional) return {};
    return BAD('The request body is empty; send a JSON object (Content-Type: application/json).');
  }
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return BAD('The request body is not valid JSON; send a JSON object (Content-Type: application/json).');
  }
  if (value === null || typeof value !== 'object') return BAD('The request body must be a JSON object.');
  return value as Record<string, unknown> | unknown[];
}

function isResponse(v: unknown): v is HubResponse {
  return (
    typeof v === 'object' && v !== null && 'status' in v && 'headers' in v && 'body' in v && typeof (v as HubResponse).status === 'number'
  );
}

/** The index spelling of a model id when the index has it. */
async function canonicalId<D extends AccountDeps>(deps: D, id: string): Promise<{ id: string; known: boolean }> {
  try {
    const m = await deps.index().model(id);
    if (m) return { id: m.id, known: true };
  } catch {
    // No index loaded: treat as unknown.
  }
  return { id, known: false };
}

function accountBody(a: AccountRecord) {
  return { did: a.did, created: a.created, wallet: a.wallet, saved: a.saved, requests: a.requests };
}

const badId = (what: string) =>
  BAD(`${what} is not a model id; use owner/name (letters, digits, "-", "_", "."; at most ${MAX_MODEL_ID_LENGTH} characters).`);

/**
 * The account surface (spec: Account, Authentication; design section 5). Rules `account`: the hub
 * allows CORS only from the configured site origin and passes the Authorization header through.
 */
function accountRouteTable<D extends AccountDeps>(): Route<D>[] {
  const route = (method: Route<D>['method'], path: string, summary: string, handler: Route<D>['handler']): Route<D> => ({
    method,
    path,
    rules: 'account',
    errors: 'hub',
    cache: 'no-store',
    summary,
    handler,
  });

  /** Authenticate, then (for writes) take a token from the account's bucket, then run `fn`. */
  const authed = (write: boolean, fn: (ctx: Ctx<D>, a: Authed) => Promise<HubResponse>): Route<D>['handler'] => {
    const run = async (ctx: Ctx<D>): Promise<HubResponse> => {
      const a = await authenticate(ctx);
      if (isResponse(a)) return a;
      if (write) {
        const limited = await limitWrite(ctx, a);
        if (limited) return limited;
      }
      return fn(ctx, a);
    };
    if (!write) return run;
    // Every write attempt is one account-write event (design 10.2), by how it ended.
    return async (ctx) => {
      let res: HubResponse | undefined;
      try {
        res = await run(ctx);
        return res;
      } finally {
        ctx.deps.metrics.emit({ type: 'account-write', outcome: writeOutcome(res?.status) });
      }
    };
  };

  return [
    route('GET', '/api/account/health', 'Whether sign-in is configured (AccountHealth).', async (ctx) =>
      json(200, { ok: true, configured: Boolean(ctx.deps.accounts?.verifier) }),
    ),

    route(
      'GET',
      '/api/account/me',
      'The signed-in account (Account).',
      authed(false, async (ctx, a) => {
        // The first signed-in call records the account; later calls only read it.
        const existing = await a.services.store.account(a.did);
        const rec = existing ?? (await a.services.store.ensure(a.did, ctx.deps.now()));
        return json(200, accountBody(rec));
      }),
    ),

    route(
      'GET',
      '/api/account/saved',
      'The saved list (SavedList).',
      authed(false, async (_ctx, a) => json(200, { saved: await a.services.store.saved(a.did) })),
    ),

    route(
      'PUT',
      '/api/account/saved',
      'Replace the whole saved list with {saved: [owner/name, …]}.',
      authed(true, async (ctx, a) => {
        const body = await readJsonObject(ctx);
        if (isResponse(body)) return body;
        const list = Array.isArray(body) ? body : body.saved;
        if (!Array.isArray(list)) return BAD('Send {"saved": ["owner/name", …]}: the whole list replaces the saved list.');
        if (list.length > MAX_SAVED) return BAD(`The saved list holds at most ${MAX_SAVED} models; send fewer.`);
        const out: string[] = [];
        const seen = new Set<string>();
        for (let i = 0; i < list.length; i++) {
          const v = list[i];
          if (!isModelId(v)) return badId(`saved[${i}]`);
          const { id } = await canonicalId(ctx.deps, v);
          const key = modelKey(id);
          if (seen.has(key)) continue;
          seen.add(key);
          out.push(id);
        }
        return json(200, { saved: await a.services.store.setSaved(a.did, out, ctx.deps.now()) });
      }),
    ),

    route(
      'POST',
      '/api/account/saved/:owner/:name',
      'Save one model (SavedList).',
      authed(true, async (ctx, a) => {
        const raw = `${ctx.params.owner}/${ctx.params.name}`;
        if (!isModelId(raw)) return badId('The path');
        const { id } = await canonicalId(ctx.deps, raw);
        const saved = await a.services.store.addSaved(a.did, id, MAX_SAVED, ctx.deps.now());
        if (saved === 'full')
          return errorResponse('hub', 409, 'SavedListFull', `The saved list already holds ${MAX_SAVED} models; remove one first.`);
        return json(200, { saved });
      }),
    ),

    route(
      'DELETE',
      '/api/account/saved/:owner/:name',
      'Remove one model from the saved list (SavedList).',
      authed(true, async (ctx, a) => {
        const raw = `${ctx.params.owner}/${ctx.params.name}`;
        if (!isModelId(raw)) return badId('The path');
        return json(200, { saved: await a.services.store.removeSaved(a.did, raw, ctx.deps.now()) });
      }),
    ),

    route(
      'POST',
      '/api/account/request',
      'Ask for a model to be indexed: {model: owner/name}. 409 when this account already asked.',
      authed(true, async (ctx, a) => {
        const body = await readJsonObject(ctx);
        if (isResponse(body)) return body;
        const model = Array.isArray(body) ? undefined : body.model;
        if (model === undefined) return BAD('Send {"model": "owner/name"}: the model to index.');
        if (!isModelId(model)) return badId('model');
        const { id, known } = await canonicalId(ctx.deps, model);
        const outcome = await a.services.store.request(a.did, id, MAX_REQUESTS_PER_ACCOUNT, ctx.deps.now());
        if (outcome === 'exists') {
          return errorResponse(
            'hub',
            409,
            'AlreadyRequested',
            `This account already asked for ${id}; it is queued for the next index run.`,
          );
        }
        if (outcome === 'full') {
          return errorResponse(
            'hub',
            409,
            'RequestLimit',
            `This account already holds ${MAX_REQUESTS_PER_ACCOUNT} model requests; no more can be recorded.`,
          );
        }
        if (!known) recordMissing(ctx.deps, id);
        return json(201, { model: id, queued: true, indexed: known });
      }),
    ),

    route(
      'POST',
      '/api/account/publish-interest',
      "Record that this person wants to publish; access is an operator's decision.",
      authed(true, async (ctx, a) => {
        const since = await a.services.store.recordPublishInterest(a.did, ctx.deps.now());
        return json(200, { did: a.did, publishInterest: since, note: 'Recorded. Publishing access is granted by the operator.' });
      }),
    ),

    route(
      'PUT',
      '/api/account/wallet',
      'Record a wallet address {wallet: string | null}; recorded, never trusted (Account).',
      authed(true, async (ctx, a) => {
        const body = await readJsonObject(ctx);
        if (isResponse(body)) return body;
        const wallet = Array.isArray(body) ? undefined : body.wallet;
        if (wallet === undefined) return BAD('Send {"wallet": "<address>"} (or null to clear it).');
        if (wallet !== null && !isWallet(wallet)) {
          return BAD(
            `wallet must be an address of at most ${MAX_WALLET_LENGTH} characters (letters, digits and : . _ @ + / = -), or null.`,
          );
        }
        return json(200, accountBody(await a.services.store.setWallet(a.did, wallet, ctx.deps.now())));
      }),
    ),
  ];
}

/** {@link accountRouteTable} with each route's API description (ACCOUNT_API) attached. */
export function accountRoutes<D extends AccountDeps>(): Route<D>[] {
  return describeRoutes(accountRouteTable<D>(), ACCOUNT_API);
}

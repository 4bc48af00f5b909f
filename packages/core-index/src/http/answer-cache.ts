import { Doorkeeper } from '../index/byte-lru.js';
import type { IndexStore } from '../index/index-store.js';
import type { HeaderBag, HubRequest, HubResponse } from './contract.js';
import type { CoreDeps } from './deps.js';

/**
 * Whole answers kept for reuse (issue 31, "hot path"): a route marked `reuse` answers as a function of its URL, the
 * request headers its handler reads, the loaded index and (for `'index+health'`) the source health, so its final
 * answer (after every rule: CORS, cache headers, the conditional GET, HEAD) can be served again without routing,
 * rules or handler until the index or the health changes (Varnish-style: keyed by URL, varied by the headers read).
 *
 * - Key: method and absolute URL (the URL already carries the origin used for absolute links). Variants: the values
 *   of every header the handler read (recorded while it ran) plus `If-None-Match` (the conditional GET).
 * - Dropped when the index object changes (a reload) or the health's `version()` changes (a probe outcome); a route
 *   marked `'index+health'` is not kept at all when the health has no `version`.
 * - Only answers with status below 400 and a fixed body (bytes or none) of at most `maxBodyBytes`; at most
 *   `maxEntries` URLs, `maxVariants` variants each and `maxBytes` in all, each answer counted at its body, its
 *   headers and its entry (an answer whose body is over a quarter of `maxBytes` is not kept), the oldest GET URL
 *   dropped first (then HEAD).
 * - The kept answer is frozen (its headers may not be changed by a host) and handed out as is.
 * - Once the cache is full, a new URL is kept from its second ask only (a {@link Doorkeeper}, as the paged store's
 *   caches do): at 1,000,000 models random look-ups are asked once each, and keeping every one only pushed out the
 *   answers asked again and left the collector old garbage (docs/decisions/scale-and-speed.md "Kept from the second
 *   ask").
 */
export interface AnswerCacheLimits {
  maxEntries: number;
  maxVariants: number;
  maxBodyBytes: number;
  maxBytes: number;
}

const DEFAULT_LIMITS: AnswerCacheLimits = { maxEntries: 65_536, maxVariants: 8, maxBodyBytes: 256 * 1024, maxBytes: 32 * 1024 * 1024 };

/**
 * What one kept answer costs besides its body, counted against `maxBytes` so the bound is one of memory: the entry,
 * its variant and the frozen answer (about 256 bytes of objects), and its headers' names and values (two bytes a
 * character: V8 keeps most as two-byte or shared strings; counting them so errs on the safe side).
 */
function overheadOf(headers: Readonly<Record<string, string>>): number {
  let n = 256;
  for (const k in headers) n += 2 * (k.length + (headers[k] as string).length) + 32;
  return n;
}

/** What a route's answer depends on besides the request, when it may be reused (`Route.reuse`). */
export type Reuse = 'index' | 'index+health';

/**
 * One kept answer: the values of the entry's `vary` headers it was made for, the answer, and what the cache's user
 * keeps with it (createHub: the route it came from and its metrics tally).
 */
export interface Kept<R> {
  readonly values: readonly (string | null)[];
  readonly response: HubResponse;
  readonly meta: R;
}

interface Entry<R> {
  index: IndexStore;
  /** the health version it was made under, or -1 when it does not depend on health */
  health: number;
  /** names of the request headers the handler read (lower-case), then `if-none-match` */
  vary: string[];
  /** at most `maxVariants`, compared value by value (no key string built per request) */
  variants: Kept<R>[];
  bytes: number;
}

export class AnswerCache<R> {
  /** Per method (only GET and HEAD are kept), by absolute URL; a Map keeps insertion order, oldest first. */
  private readonly byMethod = { GET: new Map<string, Entry<R>>(), HEAD: new Map<string, Entry<R>>() };
  private bytes = 0;
  private readonly limits: AnswerCacheLimits;
  private readonly door = new Doorkeeper();

  constructor(
    private readonly deps: Pick<CoreDeps, 'index' | 'health'>,
    limits: Partial<AnswerCacheLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /**
   * The kept answer for this request (with what was kept with it), or undefined. Synchronous: a host may write it
   * without a turn of the loop. The hot path: two map lookups and one comparison per header the answer varies on.
   */
  get(req: HubRequest): Kept<R> | undefined {
    const entries = req.method === 'GET' ? this.byMethod.GET : req.method === 'HEAD' ? this.byMethod.HEAD : undefined;
    if (!entries) return undefined;
    const entry = entries.get(req.url);
    if (!entry) return undefined;
    if (entry.index !== this.deps.index() || (entry.health !== -1 && entry.health !== this.healthVersion())) {
      this.drop(entries, req.url, entry);
      return undefined;
    }
    const vary = entry.vary;
    const headers = req.headers;
    // Usually one variant: read each header once, compare with every variant.
    let values: (string | null)[] | undefined;
    if (entry.variants.length > 1) values = vary.map((name) => headers.get(name));
    for (const kept of entry.variants) {
      let same = true;
      for (let i = 0; i < vary.length; i++) {
        const v = values ? values[i] : headers.get(vary[i] as string);
        if (v !== kept.values[i]) {
          same = false;
          break;
        }
      }
      if (same) return kept;
    }
    return undefined;
  }

  /** A request header bag that records which headers are read (for the answer's variants). */
  recorder(headers: HeaderBag): { headers: HeaderBag; read: Set<string> } {
    const read = new Set<string>();
    return {
      read,
      headers: {
        get(name: string) {
          read.add(name.toLowerCase());
          return headers.get(name);
        },
      },
    };
  }

  /**
   * Keep `res` (the final answer to `req`) when it qualifies. `index` and `health` are what the handler ran under,
   * read before it ran, so an answer made while either changed is never kept under the new one.
   */
  put(req: HubRequest, res: HubResponse, meta: R, reuse: Reuse, read: Set<string>, index: IndexStore, health: number | undefined): void {
    const entries = req.method === 'GET' ? this.byMethod.GET : req.method === 'HEAD' ? this.byMethod.HEAD : undefined;
    if (!entries) return;
    if (res.status >= 400) return;
    if (reuse === 'index+health' && health === undefined) return;
    const body = res.body;
    if (body !== null && !(body instanceof Uint8Array)) return;
    const size = body?.byteLength ?? 0;
    // An answer larger than a quarter of the whole is not kept: it would push out every other (or itself).
    if (size > this.limits.maxBodyBytes || size > this.limits.maxBytes / 4) return;
    if (index !== this.deps.index()) return;
    const key = req.url;
    let entry = entries.get(key);
    // (a GET's key is its URL as is: no string is built for the random look-ups that pass through)
    if (!entry && this.full(size) && !this.door.seen(req.method === 'GET' ? key : `HEAD ${key}`)) return;
    const vary = [...read].filter((n) => n !== 'if-none-match').sort();
    vary.push('if-none-match');
    const healthAt = reuse === 'index+health' ? (health as number) : -1;
    if (entry && (entry.index !== index || entry.health !== healthAt || entry.vary.join() !== vary.join())) {
      this.drop(entries, key, entry);
      entry = undefined;
    }
    if (!entry) {
      entry = { index, health: healthAt, vary, variants: [], bytes: 0 };
      entries.set(key, entry);
    }
    if (entry.variants.length >= this.limits.maxVariants) return;
    const values = Object.freeze(vary.map((name) => req.headers.get(name)));
    if (entry.variants.some((k) => k.values.every((v, i) => v === values[i]))) return;
    const response: HubResponse = Object.freeze({ status: res.status, headers: Object.freeze({ ...res.headers }), body });
    entry.variants.push(Object.freeze({ values, response, meta }));
    const counted = size + overheadOf(response.headers) + 2 * key.length;
    entry.bytes += counted;
    this.bytes += counted;
    while (this.size > this.limits.maxEntries || this.bytes > this.limits.maxBytes) {
      // the oldest GET URL, then the oldest HEAD URL
      const from = this.byMethod.GET.size > 0 ? this.byMethod.GET : this.byMethod.HEAD;
      const oldest = from.entries().next().value as [string, Entry<R>] | undefined;
      if (!oldest) break;
      this.drop(from, oldest[0], oldest[1]);
    }
  }

  /** Whether keeping a new answer of `size` bytes would push another out. */
  private full(size: number): boolean {
    return this.size >= this.limits.maxEntries || this.bytes + size > this.limits.maxBytes;
  }

  /** The health version now, or undefined when the health keeps none. */
  healthVersion(): number | undefined {
    return this.deps.health.version?.();
  }

  /** Bytes the kept answers are counted at now: bodies, headers and entries (what `maxBytes` bounds). */
  get keptBytes(): number {
    return this.bytes;
  }

  /** URLs kept, per method counted apart (for tests and the benchmark's report). */
  get size(): number {
    return this.byMethod.GET.size + this.byMethod.HEAD.size;
  }

  private drop(entries: Map<string, Entry<R>>, key: string, entry: Entry<R>): void {
    entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

import { encodePath, parseRange, sha256Hex } from '@hub/core-index';
import { fakeBucketOf, listPage, modelscopeAnswer, notFoundAnswer, pathsInfoAnswer, treePage } from './fake-answers.js';
import { bertModel, makeModel, type ShaRecords, syntheticSha } from './fake-models.js';
import type { FakeModel, FakeUpstreamData, FakeUpstreamOptions } from './fake-types.js';

/**
 * A fake model host (and a fake ModelScope) for tests of the index run, answering web `Request`s,
 * so msw can mount it in-process and a tiny node:http adapter can serve it to a child process.
 *
 * Real data comes in through {@link FakeUpstreamData} (the 600 trending rows, the bert-base-uncased
 * tree, the per-file SHA-256 records, the tiny real GGUF: fixtures/model-host, its README says where each came
 * from). Everything this file and its parts make up is SYNTHETIC:
 * - every commit hash (the real listing has none): `sha256("SYNTHETIC commit …")[:40]`;
 * - the small files (`.gitattributes`, `config.json`, `README.md`) and their bytes;
 * - weight files of models without SHA-256 records (`model.safetensors`, sizes and hashes);
 * - sizes of recorded files whose record has no size;
 * - a `{name}-Q4_K_M.gguf` in GGUF-tagged models without records, whose bytes are the real tiny GGUF;
 *   every `.gguf` path is served with the tiny GGUF's bytes (a stand-in, for header reads);
 * - the bert tree's small files' bytes (filler of the real sizes; their real bytes are not in the data);
 * - the `gated`, `private` and `disabled` flags (the real listing dropped them);
 * - every ModelScope listing.
 *
 * The parts: the options and data it is made of (`fake-types.ts`), the models it makes from them (`fake-models.ts`),
 * the answers that read only the models (`fake-answers.ts`); this file holds the state, the real host's quota and
 * the routing.
 */

export class FakeUpstream {
  readonly models = new Map<string, FakeModel>();
  /** ids in listing (trending) order */
  order: string[] = [];
  readonly counts: Record<string, number> = {};
  readonly log: string[] = [];
  private readonly injected: Array<{ match: RegExp; responses: Array<{ status: number; headers?: Record<string, string> }> }> = [];
  private readonly records: ShaRecords = new Map();
  readonly ggufSha256: string;
  /** real-host mode: requests per `token|anonymous:bucket:window`, and requests answered over the quota */
  readonly windows = new Map<string, number>();
  readonly overQuota: Record<string, number> = {};
  /** requests per bucket that reached the host (429s included) */
  readonly byBucket: Record<string, number> = {};
  /** Authorization headers seen on requests to another host than the model host (must stay 0) */
  authElsewhere = 0;
  private readonly started: number;

  constructor(
    private readonly data: FakeUpstreamData,
    readonly options: FakeUpstreamOptions,
  ) {
    this.ggufSha256 = sha256Hex(data.gguf);
    this.started = options.realHost?.now() ?? 0;
    for (const r of data.sha256Records ?? []) {
      this.records.set(
        r.repo,
        r.files.flatMap((f) => (f.variants[0] ? [{ path: f.path, sha256: f.variants[0].sha256, size: f.variants[0].size }] : [])),
      );
    }
    for (const row of data.trending) {
      this.models.set(row.id, makeModel(row, 0, this.records, data, options));
      this.order.push(row.id);
    }
    if (data.bertTree) this.models.set(data.bertTree.repo, bertModel(data.bertTree));
  }

  /** A new revision of one model (new commit, changed config.json). */
  bump(id: string): FakeModel {
    const old = this.models.get(id);
    if (!old) throw new Error(`no model ${id}`);
    const row = this.data.trending.find((r) => r.id === id);
    if (!row) throw new Error(`${id} is not a trending row`);
    const m = makeModel(row, old.generation + 1, this.records, this.data, this.options);
    this.models.set(id, m);
    return m;
  }

  /**
   * Put a model of given small files first in the listing (a model.sig and the files it signs, say), at a SYNTHETIC
   * commit of `generation`; again with the same id replaces it (a new revision when the generation changes).
   */
  place(id: string, files: Record<string, Uint8Array>, security?: FakeModel['security'], generation = 0): FakeModel {
    const sha = syntheticSha(id, generation);
    const row = { id, modelId: id, author: id.split('/')[0], sha, private: false, gated: false, disabled: false, tags: [] };
    const m: FakeModel = {
      id,
      sha,
      generation,
      row,
      files: Object.entries(files).map(([path, bytes]) => ({ path, size: bytes.byteLength, bytes })),
      ...(security ? { security } : {}),
    };
    this.models.set(id, m);
    if (!this.order.includes(id)) this.order.unshift(id);
    return m;
  }

  /** Answer the next requests whose URL matches with these statuses (then behave normally). */
  inject(match: RegExp, responses: Array<{ status: number; headers?: Record<string, string> }>): void {
    this.injected.push({ match, responses: [...responses] });
  }

  private count(kind: string) {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
  }

  private counted(kind: string, res: Response): Response {
    this.count(kind);
    return res;
  }

  async handle(request: Request): Promise<Response> {
    if (this.options.delayMs) await new Promise((r) => setTimeout(r, this.options.delayMs));
    const url = new URL(request.url);
    this.log.push(`${request.method} ${url.pathname}${url.search}`);
    const rh = this.options.realHost;
    if (!rh || (this.options.msBase && request.url.startsWith(this.options.msBase))) {
      if (request.headers.get('authorization') && this.options.msBase && request.url.startsWith(this.options.msBase)) this.authElsewhere++;
      return this.answer(request, url);
    }
    if (new URL(this.options.base).origin !== url.origin) {
      if (request.headers.get('authorization')) this.authElsewhere++;
    }
    // The real host's quota: one fixed window per bucket, counted per caller (token or anonymous).
    const bucket = fakeBucketOf(url.pathname);
    this.byBucket[bucket] = (this.byBucket[bucket] ?? 0) + 1;
    const authed = !!rh.token && request.headers.get('authorization') === `Bearer ${rh.token}`;
    const w = (rh.windowSeconds ?? 300) * 1000;
    const now = rh.now();
    const index = Math.floor((now - this.started) / w);
    const key = `${authed ? 'token' : 'anonymous'}:${bucket}:${index}`;
    const used = (this.windows.get(key) ?? 0) + 1;
    this.windows.set(key, used);
    const quota = (authed ? rh.tokenQuotas : undefined)?.[bucket] ?? rh.quotas[bucket] ?? 1000;
    const reset = Math.max(1, Math.ceil((this.started + (index + 1) * w - now) / 1000));
    const headers = {
      ratelimit: `"${bucket}";r=${Math.max(0, quota - used)};t=${reset}`,
      'ratelimit-policy': `"fixed window";"${bucket}";q=${quota};w=${w / 1000}`,
    };
    let res: Response;
    if (used > quota) {
      this.overQuota[bucket] = (this.overQuota[bucket] ?? 0) + 1;
      this.count('429');
      // The documented 429: the RateLimit headers, no Retry-After.
      res = new Response(JSON.stringify({ error: 'You have been rate-limited; you can retry this action in about 5 minutes.' }), {
        status: 429,
        headers: { 'content-type': 'application/json' },
      });
    } else res = await this.answer(request, url, authed);
    if (res.status === 429) headers.ratelimit = `"${bucket}";r=0;t=${reset}`;
    const out = new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
    return out;
  }

  private async answer(request: Request, url: URL, authed = false): Promise<Response> {
    const notFound = (code: string) =>
      this.options.realHost && code === 'RepoNotFound' && !authed
        ? Response.json(
            { error: 'Repository not found' },
            { status: 401, headers: { 'x-error-code': 'RepoNotFound', 'x-error-message': 'Repository not found' } },
          )
        : notFoundAnswer(code);
    for (const inj of this.injected) {
      if (inj.responses.length && inj.match.test(request.url)) {
        const r = inj.responses.shift() as { status: number; headers?: Record<string, string> };
        this.count(`injected-${r.status}`);
        return new Response(JSON.stringify({ error: `injected ${r.status}` }), { status: r.status, headers: r.headers ?? {} });
      }
    }
    if (this.options.msBase && request.url.startsWith(this.options.msBase))
      return this.counted(
        'modelscope',
        modelscopeAnswer(
          new URL(request.url.slice(this.options.msBase.replace(/\/+$/, '').length) || '/', 'http://ms.invalid'),
          this.models,
          this.options,
        ),
      );
    const p = url.pathname;
    if (p === '/api/models') return this.counted('list', listPage(url, this.order, this.models, this.options));
    let m = /^\/api\/models\/([^/]+)\/([^/]+)(?:\/revision\/([^/]+))?$/.exec(p);
    if (m) {
      this.count(m[3] ? 'revision' : 'info');
      const model = this.models.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      if (!model) return notFound('RepoNotFound');
      const security = /^true$/i.test(url.searchParams.get('securityStatus') ?? '')
        ? { securityRepoStatus: { scansDone: model.security?.scansDone ?? true, filesWithIssues: model.security?.filesWithIssues ?? [] } }
        : {};
      return Response.json({ ...model.row, siblings: model.files.map((f) => ({ rfilename: f.path })), ...security });
    }
    m = /^\/api\/models\/([^/]+)\/([^/]+)\/paths-info\/([^/]+)$/.exec(p);
    if (m && request.method === 'POST') {
      this.count('paths-info');
      const model = this.models.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      if (!model) return notFound('RepoNotFound');
      if (m[3] !== model.sha) return notFound('RevisionNotFound');
      return pathsInfoAnswer(model, (await request.json()) as { paths?: string[]; expand?: boolean });
    }
    m = /^\/api\/models\/([^/]+)\/([^/]+)\/tree\/([^/]+)$/.exec(p);
    if (m) {
      this.count('tree');
      if (!url.searchParams.has('cursor')) this.count('tree-first');
      const model = this.models.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      if (!model) return notFound('RepoNotFound');
      if (m[3] !== model.sha) return notFound('RevisionNotFound');
      return treePage(url, model, this.options);
    }
    m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(p);
    if (m) {
      const model = this.models.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      if (!model) return notFound('RepoNotFound');
      if (m[3] !== model.sha) return notFound('RevisionNotFound');
      const path = (m[4] as string).split('/').map(decodeURIComponent).join('/');
      const file = model.files.find((f) => f.path === path);
      if (!file) return notFound('EntryNotFound');
      const bytes = file.bytes ?? file.serve;
      if (!bytes) {
        this.count('resolve-lfs');
        return new Response(null, { status: 302, headers: { location: `https://cdn.invalid/${file.lfs}` } });
      }
      const range = parseRange(request.headers.get('range'), bytes.byteLength);
      if (range === 'unsatisfiable')
        return new Response(null, { status: 416, headers: { 'content-range': `bytes */${bytes.byteLength}` } });
      if (range) {
        this.count('range');
        return new Response(bytes.slice(range.start, range.end + 1), {
          status: 206,
          headers: { 'content-range': `bytes ${range.start}-${range.end}/${bytes.byteLength}`, 'content-type': 'application/octet-stream' },
        });
      }
      this.count('resolve');
      return new Response(bytes.slice(), { status: 200, headers: { 'content-type': 'application/octet-stream' } });
    }
    return notFound('NotFound');
  }

  /** The URL a file of a model is downloaded from (for assertions). */
  resolveUrl(id: string, path: string): string {
    const m = this.models.get(id) as FakeModel;
    return `${this.options.base}/${id}/resolve/${m.sha}/${encodePath(path)}`;
  }
}

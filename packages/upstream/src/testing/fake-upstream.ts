import { encodePath, parseRange, sha256Hex } from '@hub/core-index';
import type { UpstreamTreeEntry } from '../model.js';

/**
 * A fake model host (and a fake ModelScope) for tests of the index run, answering web `Request`s,
 * so msw can mount it in-process and a tiny node:http adapter can serve it to a child process.
 *
 * Real data comes in through {@link FakeUpstreamData} (the 600 trending rows, the bert-base-uncased
 * tree, the per-file SHA-256 records, the tiny real GGUF, all from ../shared/data). Everything this
 * file makes up is SYNTHETIC:
 * - every commit hash (the real listing has none): `sha256("SYNTHETIC commit …")[:40]`;
 * - the small files (`.gitattributes`, `config.json`, `README.md`) and their bytes;
 * - weight files of models without SHA-256 records (`model.safetensors`, sizes and hashes);
 * - sizes of recorded files whose record has no size;
 * - a `{name}-Q4_K_M.gguf` in GGUF-tagged models without records, whose bytes are the real tiny GGUF;
 *   every `.gguf` path is served with the tiny GGUF's bytes (a stand-in, for header reads);
 * - the bert tree's small files' bytes (filler of the real sizes; their real bytes are not in the data);
 * - the `gated`, `private` and `disabled` flags (the real listing dropped them);
 * - every ModelScope listing.
 */

export interface TrendingRow {
  id: string;
  author?: string;
  downloads?: number;
  likes?: number;
  trendingScore?: number;
  pipelineTag?: string | null;
  libraryName?: string | null;
  tags?: string[];
  createdAt?: string;
  lastModified?: string;
}

export interface FakeUpstreamData {
  /** `trending/hf_trending_models_2026-05-04.json` → `models` */
  trending: TrendingRow[];
  /** `trees/google-bert__bert-base-uncased@dd4bc8b2.tree.json` */
  bertTree?: { repo: string; revision: string; tree: UpstreamTreeEntry[] };
  /** `files_sha256/hf_file_sha256_index.json` → `repos` */
  sha256Records?: Array<{ repo: string; files: Array<{ path: string; variants: Array<{ sha256: string; size: number | null }> }> }>;
  /** `gguf/llama-2-tiny-random.gguf` */
  gguf: Uint8Array;
}

export interface FakeFile {
  path: string;
  size: number;
  /** LFS files: their SHA-256; small files have bytes instead */
  lfs?: string;
  bytes?: Uint8Array;
  /** served for range reads (GGUF stand-in) */
  serve?: Uint8Array;
}

export interface FakeModel {
  id: string;
  sha: string;
  generation: number;
  row: Record<string, unknown>;
  files: FakeFile[];
}

export interface FakeUpstreamOptions {
  /** base URL of the fake model host, e.g. `https://hf.test` */
  base: string;
  /** base URL of the fake ModelScope, e.g. `https://ms.test` */
  msBase?: string;
  /** SYNTHETIC flags on listing rows */
  gated?: string[];
  private?: string[];
  disabled?: string[];
  /** Tree entries per page (to exercise `Link` pages); default 1000. */
  treePageSize?: number;
  /** Largest listing page; default 1000. */
  maxListLimit?: number;
  /**
   * SYNTHETIC ModelScope repositories: `msId → { from: hfId, mode }`. `same` copies every file with its
   * hash; `weights` only the LFS files; `other-bytes` the same paths with other hashes (a name match
   * that must not count).
   */
  modelscope?: Record<string, { from: string; mode: 'same' | 'weights' | 'other-bytes' }>;
  /** Wait this long (real timers) before answering each request, for kill tests. */
  delayMs?: number;
  /** Answer like the real host (see {@link RealHostOptions}). */
  realHost?: RealHostOptions;
}

/**
 * The real host's manners, from the recorded answers in `fixtures/model-host-recorded/` (hub-docs
 * rate-limits.md, huggingface_hub `_http.py`, huggingface.js specs):
 * - quotas per bucket (`api`, `resolvers`, `pages`) per fixed window; every answer carries
 *   `RateLimit: "<bucket>";r=<remaining>;t=<seconds to reset>` and `RateLimit-Policy: "fixed window";"<bucket>";q=<quota>;w=<window>`;
 *   over the quota a 429 with the same headers and no `Retry-After`;
 * - an unknown repository answers 401 with `X-Error-Code: RepoNotFound` (anonymous) or 404 (with a token);
 * - tree entries of Xet-backed files carry `xetHash` beside `lfs` (the hash itself SYNTHETIC);
 * - listing rows without `expand[]`/`full` carry only the default fields; with `expand[]` only `_id`, `id` and the
 *   expanded fields (projection mode);
 * - tree pages of 1,000 entries with an absolute `Link: <…>; rel="next"`.
 */
export interface RealHostOptions {
  /** the clock that decides windows (the run's clock) */
  now: () => number;
  /** quota per window per bucket without a token (the recorded anonymous tier) */
  quotas: Record<string, number>;
  /** quota per window per bucket with the token (the recorded free tier) */
  tokenQuotas?: Record<string, number>;
  /** the token the host accepts (`Authorization: Bearer …`) */
  token?: string;
  /** window length in seconds (recorded: 300) */
  windowSeconds?: number;
  /** the listing's default fields (recorded from huggingface.js list-models) */
  defaultFields?: string[];
  /**
   * The `gguf` block the host computes from a repository's GGUF header (`expand[]=gguf`), for models with a GGUF
   * file: pass what the stand-in GGUF's header says. Absent: rows carry no `gguf` block.
   */
  ggufInfo?: { total?: number; architecture: string; context_length?: number; chat_template?: string };
}

/** The rate-limit bucket of a path on the model host (hub-docs rate-limits.md). */
export function fakeBucketOf(path: string): string {
  if (path.includes('/resolve/')) return 'resolvers';
  if (path.startsWith('/api/')) return 'api';
  return 'pages';
}

const enc = new TextEncoder();

function syntheticSha(id: string, generation: number): string {
  return sha256Hex(enc.encode(`SYNTHETIC commit ${id} ${generation}`)).slice(0, 40);
}

function filler(size: number, seed: string): Uint8Array {
  const out = new Uint8Array(size);
  const pattern = enc.encode(`SYNTHETIC filler for ${seed}\n`);
  for (let i = 0; i < size; i++) out[i] = pattern[i % pattern.length] as number;
  return out;
}

export class FakeUpstream {
  readonly models = new Map<string, FakeModel>();
  /** ids in listing (trending) order */
  order: string[] = [];
  readonly counts: Record<string, number> = {};
  readonly log: string[] = [];
  private readonly injected: Array<{ match: RegExp; responses: Array<{ status: number; headers?: Record<string, string> }> }> = [];
  private readonly records = new Map<string, Array<{ path: string; sha256: string; size: number | null }>>();
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
      this.models.set(row.id, this.makeModel(row, 0));
      this.order.push(row.id);
    }
    if (data.bertTree) {
      const bt = data.bertTree;
      const files: FakeFile[] = bt.tree
        .filter((e) => e.type === 'file')
        .map((e) =>
          e.lfs
            ? { path: e.path, size: e.lfs.size, lfs: e.lfs.oid }
            : { path: e.path, size: e.size ?? 0, bytes: filler(e.size ?? 0, `${bt.repo}/${e.path}`) },
        );
      // The bert model is not trending: reachable by id only (as the missing log asks for it).
      this.models.set(bt.repo, {
        id: bt.repo,
        sha: bt.revision,
        generation: 0,
        row: {
          id: bt.repo,
          modelId: bt.repo,
          sha: bt.revision,
          private: false,
          gated: false,
          disabled: false,
          author: bt.repo.split('/')[0],
          pipeline_tag: 'fill-mask',
          library_name: 'transformers',
          tags: ['transformers', 'bert', 'fill-mask', 'license:apache-2.0'],
        },
        files,
      });
    }
  }

  private makeModel(row: TrendingRow, generation: number): FakeModel {
    const id = row.id;
    const name = id.split('/')[1] as string;
    const files: FakeFile[] = [];
    const small = (path: string, text: string) => {
      const bytes = enc.encode(text);
      files.push({ path, size: bytes.byteLength, bytes });
    };
    small('.gitattributes', '*.gguf filter=lfs diff=lfs merge=lfs -text\n*.safetensors filter=lfs diff=lfs merge=lfs -text\n# SYNTHETIC\n');
    small('config.json', `${JSON.stringify({ _note: 'SYNTHETIC fixture file, not the real config', id, generation }, null, 2)}\n`);
    small('README.md', `# ${id}\n\nSYNTHETIC fixture README, generation ${generation}.\n`);
    const recs = this.records.get(id)?.filter((r) => !files.some((f) => f.path === r.path));
    if (recs?.length) {
      for (const r of recs.slice(0, 4)) {
        const size = r.size ?? 1_000_000 + (Number.parseInt(r.sha256.slice(0, 6), 16) % 1_000_000); // SYNTHETIC when the record has none
        files.push({ path: r.path, size, lfs: r.sha256, ...(/\.gguf$/i.test(r.path) ? { serve: this.data.gguf } : {}) });
      }
    } else if (row.tags?.includes('gguf')) {
      files.push({ path: `${name}-Q4_K_M.gguf`, size: this.data.gguf.byteLength, lfs: sha256Hex(this.data.gguf), serve: this.data.gguf });
    } else {
      const sha = sha256Hex(enc.encode(`SYNTHETIC weights ${id} ${generation}`));
      files.push({ path: 'model.safetensors', size: 5_000_000 + (Number.parseInt(sha.slice(0, 6), 16) % 1_000_000), lfs: sha });
    }
    if (id.length % 3 === 0) small('nested/dir/tokenizer_config.json', `{"_note":"SYNTHETIC","id":${JSON.stringify(id)}}\n`);
    const flags = (list?: string[]) => list?.includes(id) ?? false;
    const apiRow: Record<string, unknown> = {
      _id: sha256Hex(enc.encode(`SYNTHETIC _id ${id}`)).slice(0, 24),
      id,
      modelId: id,
      author: row.author ?? id.split('/')[0],
      sha: syntheticSha(id, generation),
      private: flags(this.options.private),
      gated: flags(this.options.gated) ? 'manual' : false,
      disabled: flags(this.options.disabled),
      downloads: row.downloads,
      likes: row.likes,
      trendingScore: row.trendingScore,
      ...(row.pipelineTag ? { pipeline_tag: row.pipelineTag } : {}),
      ...(row.libraryName ? { library_name: row.libraryName } : {}),
      tags: row.tags ?? [],
      createdAt: row.createdAt,
      lastModified: row.lastModified,
    };
    return { id, sha: apiRow.sha as string, generation, row: apiRow, files };
  }

  /** A new revision of one model (new commit, changed config.json). */
  bump(id: string): FakeModel {
    const old = this.models.get(id);
    if (!old) throw new Error(`no model ${id}`);
    const row = this.data.trending.find((r) => r.id === id);
    if (!row) throw new Error(`${id} is not a trending row`);
    const m = this.makeModel(row, old.generation + 1);
    this.models.set(id, m);
    return m;
  }

  /** Answer the next requests whose URL matches with these statuses (then behave normally). */
  inject(match: RegExp, responses: Array<{ status: number; headers?: Record<string, string> }>): void {
    this.injected.push({ match, responses: [...responses] });
  }

  private count(kind: string) {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
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
      return this.modelscope(new URL(request.url.slice(this.options.msBase.replace(/\/+$/, '').length) || '/', 'http://ms.invalid'));
    const p = url.pathname;
    if (p === '/api/models') return this.list(url);
    let m = /^\/api\/models\/([^/]+)\/([^/]+)(?:\/revision\/([^/]+))?$/.exec(p);
    if (m) {
      this.count(m[3] ? 'revision' : 'info');
      const model = this.models.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      if (!model) return notFound('RepoNotFound');
      return Response.json({ ...model.row, siblings: model.files.map((f) => ({ rfilename: f.path })) });
    }
    m = /^\/api\/models\/([^/]+)\/([^/]+)\/tree\/([^/]+)$/.exec(p);
    if (m) {
      this.count('tree');
      if (!url.searchParams.has('cursor')) this.count('tree-first');
      const model = this.models.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      if (!model) return notFound('RepoNotFound');
      if (m[3] !== model.sha) return notFound('RevisionNotFound');
      return this.tree(url, model);
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

  private list(url: URL): Response {
    this.count('list');
    const limit = Math.min(Number(url.searchParams.get('limit') ?? '50') || 50, this.options.maxListLimit ?? 1000);
    const offset = Number(url.searchParams.get('cursor') ?? '0') || 0;
    const ids = this.order.slice(offset, offset + limit);
    const expand = url.searchParams.getAll('expand[]').concat(url.searchParams.getAll('expand'));
    const rh = this.options.realHost;
    const rows = ids.map((id) => {
      const m = this.models.get(id) as FakeModel;
      const full: Record<string, unknown> = { ...m.row, siblings: m.files.map((f) => ({ rfilename: f.path })) };
      if (rh?.ggufInfo && m.files.some((f) => /\.gguf$/i.test(f.path))) full.gguf = rh.ggufInfo;
      if (!rh || (url.searchParams.get('full') === 'true' && expand.length === 0)) return full;
      // The real listing: projection mode with expand[], else only its default fields.
      const fields = expand.length
        ? ['_id', 'id', ...expand]
        : (rh.defaultFields ?? ['_id', 'id', 'private', 'downloads', 'likes', 'lastModified']);
      return Object.fromEntries(fields.filter((f) => full[f] !== undefined).map((f) => [f, full[f]]));
    });
    const headers: Record<string, string> = {};
    if (offset + limit < this.order.length) {
      const next = new URL(url);
      next.searchParams.set('cursor', String(offset + limit));
      headers.link = `<${next.toString()}>; rel="next"`;
    }
    return Response.json(rows, { headers });
  }

  private tree(url: URL, model: FakeModel): Response {
    const entries: Array<Record<string, unknown>> = [];
    const dirs = new Set<string>();
    for (const f of [...model.files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const parts = f.path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const d = parts.slice(0, i).join('/');
        if (!dirs.has(d)) {
          dirs.add(d);
          entries.push({ type: 'directory', oid: syntheticSha(d, 0), size: 0, path: d });
        }
      }
      entries.push({
        type: 'file',
        oid: syntheticSha(`${model.id}/${f.path}`, model.generation), // SYNTHETIC git oid
        size: f.size,
        path: f.path,
        ...(f.lfs ? { lfs: { oid: f.lfs, size: f.size, pointerSize: 125 + String(f.size).length } } : {}),
        // Xet-backed files: xetHash beside lfs (the hash SYNTHETIC).
        ...(f.lfs && this.options.realHost ? { xetHash: sha256Hex(enc.encode(`SYNTHETIC xet ${f.lfs}`)) } : {}),
      });
    }
    const size = this.options.treePageSize ?? 1000;
    const offset = Number(url.searchParams.get('cursor') ?? '0') || 0;
    const headers: Record<string, string> = {};
    if (offset + size < entries.length) {
      const next = new URL(url);
      next.searchParams.set('cursor', String(offset + size));
      headers.link = `<${next.toString()}>; rel="next"`;
    }
    return Response.json(entries.slice(offset, offset + size), { headers });
  }

  private modelscope(url: URL): Response {
    this.count('modelscope');
    const m = /^\/api\/v1\/models\/([^/]+)\/([^/]+)\/repo\/files$/.exec(url.pathname);
    const msId = m ? `${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}` : '';
    const repo = this.options.modelscope?.[msId];
    const model = repo ? this.models.get(repo.from) : undefined;
    if (!repo || !model) return Response.json({ Code: 10010205001, Message: 'model not exist', Success: false }, { status: 404 });
    const files = model.files
      .filter((f) => repo.mode !== 'weights' || f.lfs)
      .map((f) => {
        const sha = f.lfs ?? sha256Hex(f.bytes ?? new Uint8Array());
        const name = f.path.split('/').pop() as string;
        return {
          Name: name,
          Path: f.path,
          Type: 'blob',
          Size: f.size,
          Sha256: repo.mode === 'other-bytes' ? sha256Hex(enc.encode(`SYNTHETIC other ${sha}`)) : sha,
          Revision: syntheticSha(`ms ${msId}`, 0),
        };
      });
    return Response.json({ Code: 200, Success: true, Message: 'success', Data: { Files: files } });
  }

  /** The URL a file of a model is downloaded from (for assertions). */
  resolveUrl(id: string, path: string): string {
    const m = this.models.get(id) as FakeModel;
    return `${this.options.base}/${id}/resolve/${m.sha}/${encodePath(path)}`;
  }
}

function notFoundAnswer(code: string): Response {
  return Response.json({ error: `${code} (fake upstream)` }, { status: 404, headers: { 'x-error-code': code } });
}

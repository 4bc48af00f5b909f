import type { UpstreamTreeEntry } from '../model.js';

/** What the fake model host is made of and how it behaves (see fake-upstream.ts for what is SYNTHETIC). */

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
  /**
   * The host's scan verdicts for this revision, as `?securityStatus=true` answers them (`securityRepoStatus`) and
   * `paths-info` with `expand=true` (`securityFileStatus` per path). Absent: the host's answer for a clean repo.
   */
  security?: { scansDone: boolean; filesWithIssues: Array<{ path: string; level: string }>; files?: Record<string, unknown> };
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

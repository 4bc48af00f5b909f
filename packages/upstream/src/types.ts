import type { Address, BuildInput, BuildResult, Logger, Metrics, ObjectStore, Pins } from '@hub/core-index';
import type { SourceCheck } from './breaker.js';
import type { Clock, UpstreamClientOptions } from './client.js';
import type { SkipReason } from './model.js';
import type { HttpModelScopeOptions, ModelScopeAdapter } from './modelscope.js';
import type { VerdictOptions } from './verdicts.js';

/** The options, progress and summary of the daily run (`runUpstreamBuild`). */

export interface UpstreamBuildOptions {
  objects: ObjectStore;
  /** The upstream model host (or a mirror of its API), e.g. `https://huggingface.co`. */
  upstream: string;
  fetch: typeof fetch;
  clock?: Clock;
  /** Public trending models to index (default 500). */
  top?: number;
  /** The day to build (default: today by the clock, UTC). */
  date?: string;
  /** Ids asked for but not in the index (the missing log), indexed too when public. */
  missing?: string[];
  /** At most this many missing-log ids are looked up per run (default 200). */
  maxMissing?: number;
  /** The operator's Pins document: pinned revisions get an IPFS source. */
  pins?: Pins;
  /** ModelScope lookups: options for the HTTP adapter, an adapter, or false for none (default: none). */
  modelscope?: HttpModelScopeOptions | ModelScopeAdapter | false;
  /** Models indexed at once (default 4). */
  modelConcurrency?: number;
  /** Retry, backoff and request concurrency for the upstream (default 8 requests in flight). */
  http?: Omit<UpstreamClientOptions, 'fetch' | 'clock' | 'token' | 'tokenOrigin'>;
  /** A read token for the upstream (`HF_TOKEN`): sent to the upstream's origin only, never logged. */
  token?: string;
  /** How long the run may wait for rate-limit windows, in seconds from its start (default 6 hours). */
  deadlineSeconds?: number;
  /** Consecutive network failures after which a secondary source is not asked again in this run (default 3). */
  breakerThreshold?: number;
  /** Largest non-LFS file downloaded and hashed (default 10 MiB). */
  smallFileCap?: number;
  /** Small files downloaded at once per model (default 4). */
  smallFileConcurrency?: number;
  /** GGUF headers read per model, the preferred quantisation first (default 1; others get their quantisation from the name). */
  ggufHeadersPerModel?: number;
  /** Rows per listing page (default min(top, 500)). */
  pageSize?: number;
  /** Health key of the upstream as a byte source (default `huggingface.co`). */
  hfSource?: string;
  /** More http sources recorded as holding every file (an operator's mirror). */
  extraSources?: Array<{ source: string; url?: string }>;
  display?: (source: string) => string;
  codeCommit?: string;
  /** Fields of the archive document (registry, gateway, mirror). */
  archive?: { registry?: string; gateway?: string; mirror?: string };
  /** Keys that sign the transparency log's checkpoint (design 10.4). */
  signers?: BuildInput['signers'];
  /** The revision's model.sig check (the verifier the host injects) and the host's scan verdicts (default: scans asked). */
  verdicts?: VerdictOptions;
  /** Ignore finished work of the same day and list again. */
  fresh?: boolean;
  log?: Logger;
  /** Run events (design 10.2): each model's outcome, each request by bucket, rate-limit pauses, the run's end. */
  metrics?: Metrics;
  onProgress?: (p: BuildProgress) => void;
  /** Every model and source object of the day's catalog, for the host's load pack (`BuildInput.onObject`). */
  onObject?: BuildInput['onObject'];
  /** The objects to derive the day's index pages from (`BuildInput.pages`). */
  pages?: BuildInput['pages'];
  /** Each models page as the build writes it (`BuildInput.onModelsPage`). */
  onModelsPage?: BuildInput['onModelsPage'];
}

export interface BuildProgress {
  phase: 'list' | 'models' | 'write' | 'done';
  done: number;
  total: number;
  id?: string;
  /** quota left per rate-limit bucket, as the host last said it */
  quota?: Array<{ bucket: string; remaining: number; quota?: number }>;
  /** a pause for a bucket's window, while one is under way */
  waiting?: { bucket: string; seconds: number };
}

export interface SkippedModel {
  id: string;
  reason: SkipReason;
  detail: string;
}

export interface BuildSummary {
  catalog: Address;
  date: string;
  models: number;
  files: number;
  bytes: number;
  skipped: SkippedModel[];
  skippedByReason: Record<string, number>;
  /** models whose files came from yesterday's object (same revision) */
  reused: number;
  /** models whose attempt failed for a transient reason today: yesterday's object kept */
  kept: number;
  /** kept models by why today's attempt failed (`rate limited`, `network`, `HTTP 503`, …) */
  keptByReason: Record<string, number>;
  /** models taken from finished work of an interrupted run */
  resumed: number;
  /** secondary sources: checked today, unreachable (not checked for the rest of the run), or off */
  sources: Record<string, SourceCheck>;
  requests: number;
  /** requests per rate-limit bucket (`api`, `resolvers`, `pages`) */
  requestsByBucket: Record<string, number>;
  retries: number;
  /** answers that were 429 (each waited for its window, none counted as a retry) */
  rateLimited: number;
  waitedMs: number;
  downloadedBytes: number;
  seconds: number;
  result: BuildResult;
}

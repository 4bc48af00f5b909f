import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Address,
  formatBytes,
  LoadPackWriter,
  type Logger,
  type Metrics,
  type NoteSigner,
  type Pins,
  PinsError,
  parsePins,
  type SourceConfig,
} from '@hub/core-index';
import { verifyModelSignature } from '@hub/model-signing';
import { loadTrust, type SigningConfig } from '@hub/model-signing/node';
import { FsObjectStore } from '@hub/objects/node';
import { type BuildProgress, type BuildSummary, runUpstreamBuild } from '@hub/upstream';
import { MadeAnswersAlongBuild } from './made-answers-build.js';
import { FileMissingLog } from './missing-log.js';
import { loadPackLimit, writeLoadPackAfterBuild } from './verify.js';

export interface NodeUpstreamBuildOptions {
  dataDir: string;
  /** the store the hub serves with (config `indexStore`): how many models the load pack may hold (`loadPackLimit`) */
  indexStore?: string;
  upstream: string;
  top?: number;
  date?: string;
  /** ModelScope API base, or false for none (default core-index's MODELSCOPE_URL). */
  modelscope?: string | false;
  /** More http sources (an operator's mirror): NAME=URL_TEMPLATE */
  sources?: Array<{ name: string; url?: string }>;
  modelConcurrency?: number;
  requestConcurrency?: number;
  smallFileCap?: number;
  fresh?: boolean;
  codeCommit?: string;
  /** Sources as configured, for display names. */
  configuredSources?: SourceConfig[];
  log: Logger;
  /** The run's metric events (`hub serve --refresh` passes the hub's sink). */
  metrics?: Metrics;
  onProgress?: (p: BuildProgress) => void;
  fetch?: typeof fetch;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** A read token for the upstream (`HF_TOKEN`): sent to the upstream's origin only, never logged. */
  token?: string;
  /** Keys that sign the transparency log's checkpoint (from `signingKey` / HUB_SIGNING_KEY_FILE). */
  signers?: readonly NoteSigner[];
  /** What a repo's model.sig is checked against (config `signing`; default: the pinned Sigstore public-good root). */
  signing?: SigningConfig;
}

/**
 * The operator's Pins document: `pins.json` in the data folder (checked, then copied into the `pins`
 * ref the hub serves at /api/hub/pins), else the `pins` ref already there, else none.
 */
export async function loadPins(store: FsObjectStore, dataDir: string): Promise<Pins | undefined> {
  const file = path.join(dataDir, 'pins.json');
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    let pins: Pins;
    try {
      pins = parsePins(text);
    } catch (e) {
      throw new PinsError(`${file}: ${(e as Error).message}`);
    }
    await store.writeRef('pins', JSON.stringify(pins));
    return pins;
  }
  const ref = await store.readRef('pins');
  return ref ? parsePins(ref) : undefined;
}

/** `hub index build --upstream`: the daily run over the filesystem store of a data folder. */
export async function buildFromUpstream(options: NodeUpstreamBuildOptions): Promise<BuildSummary> {
  const store = new FsObjectStore(options.dataDir);
  const pins = await loadPins(store, options.dataDir);
  const missing = await new FileMissingLog(options.dataDir).list();
  const display = new Map((options.configuredSources ?? []).map((s) => [s.name, s.display] as const));
  const defaults: Record<string, string> = { 'huggingface.co': 'Hugging Face', 'modelscope.cn': 'ModelScope', ipfs: 'IPFS' };
  // The day's objects as the run made them: the load pack the next start (or `--refresh`'s switch) reads.
  const pack = new LoadPackWriter({ maxModels: loadPackLimit(options.indexStore) });
  // Every revision's model.sig is checked offline against this trust (docs/verification.md).
  const trust = loadTrust(options.signing);
  // A day served from its pages: its cold look-ups' answers, made as its models pages are written.
  const made = new MadeAnswersAlongBuild(store, options.dataDir, { indexStore: options.indexStore, log: options.log });
  const summary = await runUpstreamBuild({
    objects: store,
    upstream: options.upstream,
    fetch: options.fetch ?? fetch,
    ...(options.top ? { top: options.top } : {}),
    ...(options.date ? { date: options.date } : {}),
    missing,
    ...(pins ? { pins } : {}),
    modelscope: options.modelscope === false ? false : options.modelscope ? { base: options.modelscope } : {},
    ...(options.modelConcurrency ? { modelConcurrency: options.modelConcurrency } : {}),
    http: {
      ...(options.requestConcurrency ? { concurrency: options.requestConcurrency } : {}),
      headers: { 'user-agent': 'model-hub-index/0.1 (+https://github.com/; daily index run)', ...(options.headers ?? {}) },
    },
    ...(options.token ? { token: options.token } : {}),
    ...(options.smallFileCap ? { smallFileCap: options.smallFileCap } : {}),
    ...(options.fresh ? { fresh: true } : {}),
    ...(options.codeCommit ? { codeCommit: options.codeCommit } : {}),
    ...(options.signers ? { signers: options.signers } : {}),
    extraSources: (options.sources ?? []).map((s) => ({ source: s.name, ...(s.url ? { url: s.url } : {}) })),
    display: (s) => display.get(s) ?? defaults[s] ?? s,
    log: options.log,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    onObject: pack.add,
    verdicts: { verifySignature: (bundle, files, at) => verifyModelSignature(bundle, files, trust, at) },
    pages: pack,
    onModelsPage: made.onModelsPage,
  }).catch(async (e: unknown) => {
    await made.abort();
    throw e;
  });
  await writeLoadPackAfterBuild(store, options.dataDir, summary.catalog as Address, pack, options.log);
  await made.finish(summary.catalog as Address);
  return summary;
}

/**
 * A one-line progress bar for a TTY, with the quota left per bucket and any pause:
 * `[#####.....] 120/500 models  api 12/500 resolvers 2210/3000  waiting 55 s for the api window`.
 */
export function progressBar(p: BuildProgress, width = 30): string {
  const ratio = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const filled = Math.round(ratio * width);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  const what = p.phase === 'list' ? 'listed' : p.phase === 'models' ? 'models' : p.phase === 'write' ? 'writing objects' : 'done';
  const quota = (p.quota ?? []).map((q) => `${q.bucket} ${q.remaining}${q.quota !== undefined ? `/${q.quota}` : ''}`).join(' ');
  const wait = p.waiting ? `waiting ${p.waiting.seconds} s for the ${p.waiting.bucket} window` : '';
  const id = p.id && !p.waiting ? p.id.slice(0, 60) : '';
  return [`${bar} ${p.done}/${p.total} ${what}`, quota, wait || id].filter(Boolean).join('  ');
}

/** The summary as text lines for the terminal (stdout gets the JSON). */
export function summaryText(s: BuildSummary): string {
  const lines = [
    `index ${s.date}: ${s.models} models, ${s.files} files, ${formatBytes(s.bytes)} (catalog ${s.catalog})`,
    `  ${s.requests} upstream requests (${bucketLine(s)}), ${s.retries} retries, ${Math.round(s.waitedMs / 1000)} s waited, ${formatBytes(s.downloadedBytes)} of small files hashed, ${s.reused} models unchanged since the last index, ${s.resumed} resumed, ${s.seconds.toFixed(1)} s`,
  ];
  if (s.rateLimited) lines.push(`  rate limited: ${s.rateLimited} answers were 429; each waited for its window (${bucketLine(s)})`);
  const kept = Object.entries(s.keptByReason ?? {});
  if (s.kept)
    lines.push(
      `  kept: ${s.kept} (${kept.map(([r, n]) => (kept.length > 1 ? `${n} ${r}` : r)).join(', ')}): yesterday's object stays, tried again next run`,
    );
  for (const [source, state] of Object.entries(s.sources ?? {})) {
    if (state === 'unreachable')
      lines.push(`  ${source}: unreachable, not checked today (its sources from yesterday kept for unchanged revisions)`);
  }
  const reasons = Object.entries(s.skippedByReason);
  if (reasons.length) lines.push(`  skipped: ${reasons.map(([r, n]) => `${n} ${r}`).join(', ')}`);
  for (const k of s.skipped.slice(0, 50)) lines.push(`    ${k.id}: ${k.reason} (${k.detail.slice(0, 160)})`);
  if (s.skipped.length > 50) lines.push(`    … ${s.skipped.length - 50} more in the log`);
  return `${lines.join('\n')}\n`;
}

function bucketLine(s: BuildSummary): string {
  return Object.entries(s.requestsByBucket ?? {})
    .map(([b, n]) => `${n} ${b}`)
    .join(', ');
}

import { fnv1a } from '@hub/core-index';
import { withRetries } from '../retry.js';
import { conformanceCases } from './cases.js';
import type {
  CaseExpectation,
  CaseResponse,
  CaseResult,
  ConformanceCase,
  ConformanceFacts,
  ConformanceOptions,
  ConformanceReport,
  HeaderExpectation,
  Observation,
} from './types.js';

/** Headers that belong to the connection or the runtime, not to the hub's answer. */
const IGNORED_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'server',
  'alt-svc',
  'cf-ray',
  'cf-cache-status',
  'report-to',
  'nel',
]);
const TEXTUAL = /json|text|markdown|html|xml|javascript/;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Run every conformance case against a hub at `baseUrl` over real HTTP (`redirect: 'manual'`,
 * `Accept-Encoding: identity`). Reads the demo index's facts first, so the host must serve the
 * bundled demo index. Returns each case's failures and its normalised answer (see {@link compareReports}).
 */
export async function runConformance(
  baseUrl: string,
  options: ConformanceOptions,
  cases: ConformanceCase[] = conformanceCases(),
): Promise<ConformanceReport> {
  const base = baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const facts = await readFacts(base, doFetch);
  const results: CaseResult[] = [];
  for (const c of cases) {
    if (c.when && !c.when(options)) continue;
    if (options.filter && !options.filter(c)) continue;
    results.push(await runCase(base, c, facts, options, doFetch));
  }
  return { baseUrl: base, results, failures: results.flatMap((r) => r.failures.map((f) => `${r.name}: ${f}`)) };
}

/**
 * Compare two hosts' reports case by case: status, every header and the body must be equal after
 * the hosts' own origins, mirror URLs and declared host-specific fields are normalised away.
 * Returns one line per difference (empty: the hosts answer identically).
 */
export function compareReports(a: ConformanceReport, b: ConformanceReport): string[] {
  const out: string[] = [];
  const byName = new Map(b.results.map((r) => [r.name, r] as const));
  for (const ra of a.results) {
    const rb = byName.get(ra.name);
    if (!rb) {
      out.push(`${ra.name}: ran on ${a.baseUrl} only`);
      continue;
    }
    byName.delete(ra.name);
    const x = ra.observed;
    const y = rb.observed;
    if (x.status !== y.status) out.push(`${ra.name}: status ${x.status} vs ${y.status}`);
    for (const h of new Set([...Object.keys(x.headers), ...Object.keys(y.headers)])) {
      if (x.headers[h] !== y.headers[h]) out.push(`${ra.name}: header ${h}: ${show(x.headers[h])} vs ${show(y.headers[h])}`);
    }
    if (x.body !== y.body) out.push(`${ra.name}: body differs at ${firstDifference(x.body, y.body)}`);
  }
  for (const name of byName.keys()) out.push(`${name}: ran on ${b.baseUrl} only`);
  return out;
}

function show(v: string | undefined): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `char ${i}: ${JSON.stringify(a.slice(Math.max(0, i - 30), i + 50))} vs ${JSON.stringify(b.slice(Math.max(0, i - 30), i + 50))}`;
}

async function readFacts(base: string, doFetch: typeof fetch): Promise<ConformanceFacts> {
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await doFetch(`${base}${path}`, { headers: { 'accept-encoding': 'identity', ...headers }, redirect: 'manual' });
    if (!res.ok) throw new Error(`conformance: GET ${path} answered ${res.status}; the suite needs the bundled demo index`);
    return res;
  };
  const descriptor = (await (await get('/.well-known/model-hub.json')).json()) as { catalog: string };
  const gguf = (await (await get('/api/models/demo/tiny-llama-2-GGUF?blobs=true')).json()) as {
    sha: string;
    siblings: Array<{ rfilename: string; size?: number; lfs?: { sha256: string } }>;
  };
  const bert = (await (await get('/api/models/demo/tiny-bert-synthetic')).json()) as { sha: string };
  const file = gguf.siblings.find((s) => s.rfilename.endsWith('.gguf'));
  const manifestRes = await get('/v2/demo/tiny-llama-2-gguf/manifests/latest', {
    accept: 'application/vnd.docker.distribution.manifest.v2+json',
  });
  const manifest = (await manifestRes.json()) as { config: { digest: string } };
  const sums = await get('/demo/tiny-llama-2-GGUF/resolve/main/SHA256SUMS');
  const spaces = (await (await get('/spaces?format=json')).json()) as { catalog: { address: string } | null };
  const verify = await doFetch(`${base}/spaces/verify/`, { method: 'HEAD' });
  const buckets = (await (await get('/buckets?format=json')).json()) as { catalog: { address: string } | null; fetch: { url: string } };
  const repositories: string[] = [];
  // every page of the registry's catalog, by its own Link (bounded: the demo lists a handful)
  for (let next: string | undefined = '/v2/_catalog?n=100', pages = 0; next && pages < 20; pages++) {
    const res = await get(next);
    repositories.push(...((await res.json()) as { repositories: string[] }).repositories);
    next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1]?.replace(/^https?:\/\/[^/]+/, '');
  }
  return {
    catalog: descriptor.catalog,
    ggufCommit: gguf.sha,
    bertCommit: bert.sha,
    ggufSha256: file?.lfs?.sha256 ?? '',
    ggufSize: file?.size ?? 0,
    configDigest: manifest.config.digest,
    manifestDigest: manifestRes.headers.get('docker-content-digest') ?? '',
    sumsEtag: sums.headers.get('etag') ?? '',
    spacesCatalog: spaces.catalog?.address ?? '',
    verifyRoot: verify.headers.get('x-space-root') ?? '',
    bucketsCatalog: buckets.catalog?.address ?? '',
    bucketBlob: /\/blobs\/(sha256:[0-9a-f]{64})$/.exec(buckets.fetch.url)?.[1] ?? '',
    repositories,
  };
}

interface Raw {
  status: number;
  headers: Record<string, string>;
  bytes: Uint8Array;
}

async function send(
  base: string,
  c: ConformanceCase,
  method: string,
  facts: ConformanceFacts,
  o: ConformanceOptions,
  doFetch: typeof fetch,
): Promise<Raw> {
  const path = typeof c.request.path === 'function' ? c.request.path(facts) : c.request.path;
  const headers = typeof c.request.headers === 'function' ? c.request.headers(facts, o) : (c.request.headers ?? {});
  const body = typeof c.request.body === 'function' ? c.request.body() : c.request.body;
  const res = await doFetch(`${base}${path}`, {
    method,
    headers: { 'accept-encoding': 'identity', ...headers },
    redirect: 'manual',
    ...(body !== undefined ? { body: body as BodyInit } : {}),
  });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    out[k.toLowerCase()] = v;
  });
  return { status: res.status, headers: out, bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function runCase(
  base: string,
  c: ConformanceCase,
  facts: ConformanceFacts,
  o: ConformanceOptions,
  doFetch: typeof fetch,
): Promise<CaseResult> {
  const method = (c.request.method ?? 'GET').toUpperCase();
  const failures: string[] = [];
  let raw: Raw;
  try {
    // A host may close the connection after answering an oversized body early (413) while the client still writes it,
    // and the client then sees a reset instead of the answer (workerd does, more often on a loaded machine).
    raw = await withRetries(() => send(base, c, method, facts, o, doFetch));
  } catch (e) {
    return {
      name: c.name,
      area: c.area,
      failures: [`request failed: ${(e as Error).message}`],
      observed: { status: 0, headers: {}, body: '' },
    };
  }
  // HEAD: the body a GET would have, to check the announced length and to normalise it.
  // (A GET answering otherwise, as a weight blob's 307 to a HEAD's 200, has no body to compare.)
  let bodyOf = raw.bytes;
  if (method === 'HEAD') {
    if (raw.bytes.byteLength !== 0) failures.push(`HEAD answered ${raw.bytes.byteLength} body bytes`);
    const get = raw.status < 300 ? await send(base, c, 'GET', facts, o, doFetch) : undefined;
    if (get && get.status === raw.status) bodyOf = get.bytes;
    if (get && get.status === raw.status && raw.headers['content-length'] !== String(bodyOf.byteLength)) {
      failures.push(`HEAD content-length ${show(raw.headers['content-length'])}, the GET body has ${bodyOf.byteLength} bytes`);
    }
  }
  const replace = replacer(base, o.mirrorUrl);
  const res = toCaseResponse(raw, raw.bytes, replace);
  const expectation = typeof c.expect === 'function' ? c.expect(o) : c.expect;
  failures.push(...check(expectation, res, facts, o));
  return { name: c.name, area: c.area, failures, observed: observe(raw, bodyOf, replace, c) };
}

function replacer(base: string, mirror: string | undefined): (s: string) => string {
  // The origin first, then the bare host (`ollama pull host:port/…` lines in the brief).
  const pairs: Array<[string, string]> = [
    [base, '{hub}'],
    [base.replace(/^https?:\/\//, ''), '{hub-host}'],
  ];
  if (mirror) pairs.push([mirror.replace(/\/+$/, ''), '{mirror}']);
  return (s) => pairs.reduce((acc, [from, to]) => acc.split(from).join(to), s);
}

function toCaseResponse(raw: Raw, bytes: Uint8Array, replace: (s: string) => string): CaseResponse {
  const text = replace(decoder.decode(bytes));
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw.headers)) headers[k] = replace(v);
  return { status: raw.status, headers, bytes, text, json };
}

function check(e: CaseExpectation, res: CaseResponse, facts: ConformanceFacts, o: ConformanceOptions): string[] {
  const out: string[] = [];
  if (res.status !== e.status) out.push(`status ${res.status}, expected ${e.status} (${res.text.slice(0, 160)})`);
  for (const [name, want] of Object.entries(e.headers ?? {})) {
    const got = res.headers[name];
    if (!headerOk(got, want))
      out.push(`header ${name}: ${show(got)}, expected ${want === null ? '(absent)' : want === true ? '(present)' : String(want)}`);
  }
  if (e.json !== undefined && JSON.stringify(res.json) !== JSON.stringify(e.json))
    out.push(`body ${res.text.slice(0, 200)}, expected ${JSON.stringify(e.json).slice(0, 200)}`);
  if (e.text !== undefined && !(typeof e.text === 'string' ? res.text === e.text : e.text.test(res.text)))
    out.push(`body ${JSON.stringify(res.text.slice(0, 200))} does not match ${String(e.text)}`);
  if (e.check) {
    try {
      const msg = e.check(res, facts, o);
      if (msg) out.push(msg);
    } catch (err) {
      out.push(`check threw: ${(err as Error).message}`);
    }
  }
  return out;
}

function headerOk(got: string | undefined, want: HeaderExpectation): boolean {
  if (want === null) return got === undefined;
  if (want === true) return got !== undefined;
  if (got === undefined) return false;
  return typeof want === 'string' ? got === want : want.test(got);
}

/** The answer with the host's origin, its mirror, the body-dependent length and ETag, and declared host fields normalised. */
function observe(raw: Raw, body: Uint8Array, replace: (s: string) => string, c: ConformanceCase): Observation {
  const type = raw.headers['content-type'] ?? '';
  let text = TEXTUAL.test(type) || body.byteLength === 0 ? replace(decoder.decode(body)) : `bytes:${body.byteLength}:${fnv1a(body)}`;
  let hostSpecific = false;
  if (c.hostSpecific && TEXTUAL.test(type)) {
    try {
      text = JSON.stringify(c.hostSpecific(JSON.parse(text)));
      hostSpecific = true;
    } catch {
      // not JSON: compared as text
    }
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw.headers)) if (!IGNORED_HEADERS.has(k)) headers[k] = replace(v);
  // Host-specific values change the length and the ETag; the normalised body itself is compared.
  if (hostSpecific && headers['content-length'] !== undefined) headers['content-length'] = '(host-specific)';
  if (hostSpecific && headers.etag !== undefined) headers.etag = '(host-specific)';
  // Bodies that carry the origin differ in length and FNV ETag by host: compare those of the normalised body.
  if (TEXTUAL.test(type)) {
    const normalised = encoder.encode(replace(decoder.decode(body)));
    if (normalised.byteLength !== body.byteLength) {
      if (headers['content-length'] === String(body.byteLength)) headers['content-length'] = String(normalised.byteLength);
      if (headers.etag === `"${fnv1a(body)}"`) headers.etag = `"${fnv1a(normalised)}"`;
    }
  }
  return { status: raw.status, headers, body: text };
}

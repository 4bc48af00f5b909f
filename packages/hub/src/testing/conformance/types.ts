/**
 * The conformance suite's vocabulary: one list of HTTP cases, run over real HTTP against any host
 * (node-server, the edge under workerd), each answer checked against the case and compared with the
 * other host's answer.
 */

/** Values of the demo index a case needs, read from the host before the cases run. */
export interface ConformanceFacts {
  /** today's catalog address (`blake3:…`) */
  catalog: string;
  /** indexed commit of the GGUF demo model */
  ggufCommit: string;
  /** indexed commit of the transformers-style demo model */
  bertCommit: string;
  /** SHA-256 of the demo GGUF file (its OCI layer digest without `sha256:`) */
  ggufSha256: string;
  ggufSize: number;
  /** digest of the Docker v2 config blob of `latest` (a hub-made blob) */
  configDigest: string;
  /** digest of the Docker v2 manifest of `latest` */
  manifestDigest: string;
  /** ETag of the GGUF model's SHA256SUMS */
  sumsEtag: string;
  /** the current spaces catalog and the root of the bundled `verify` space */
  spacesCatalog: string;
  verifyRoot: string;
  /** the current buckets catalog and one layer blob of the seeded bucket `demo-eval:v1` */
  bucketsCatalog: string;
  bucketBlob: string;
  /** every repository `/v2/_catalog` lists (all pages) */
  repositories: string[];
}

export interface CaseRequest {
  method?: string;
  /** Path (and query) on the host; a function of the facts when it needs an address or a digest. */
  path: string | ((f: ConformanceFacts) => string);
  headers?: Record<string, string> | ((f: ConformanceFacts, o: ConformanceOptions) => Record<string, string>);
  body?: string | Uint8Array | (() => Uint8Array);
}

/** What the runner observed, as a check sees it. */
export interface CaseResponse {
  status: number;
  /** lower-case names */
  headers: Record<string, string>;
  bytes: Uint8Array;
  text: string;
  /** parsed JSON body, or undefined when the body is not JSON */
  json: any;
}

/** Header expectations: a value, a pattern, `true` (present) or `null` (absent). */
export type HeaderExpectation = string | RegExp | true | null;

export interface CaseExpectation {
  status: number;
  headers?: Record<string, HeaderExpectation>;
  /** the JSON body equals this (after the hub and mirror origins are replaced by `{hub}` and `{mirror}`) */
  json?: unknown;
  /** the text body equals this, or matches this pattern */
  text?: string | RegExp;
  /** any further check; returns a failure message, or nothing when it passes */
  check?: (res: CaseResponse, f: ConformanceFacts, o: ConformanceOptions) => string | undefined;
}

export interface ConformanceCase {
  name: string;
  /** Which dialect or area the case covers (discovery, objects, hf, oci, mcp, account, rules). */
  area: string;
  /** Run only when the host is configured this way. */
  when?: (o: ConformanceOptions) => boolean;
  request: CaseRequest;
  expect: CaseExpectation | ((o: ConformanceOptions) => CaseExpectation);
  /**
   * Fields that differ between hosts by design (the role, the server id, a store time): strip or
   * replace them in the JSON body before the two hosts' answers are compared.
   */
  hostSpecific?: (json: any) => any;
}

export interface ConformanceOptions {
  /** the fetch to use (default: global fetch); wrap it to inject a difference */
  fetch?: typeof fetch;
  /** the byte source the demo index redirects to, replaced by `{mirror}` before comparing */
  mirrorUrl?: string;
  /** `server` (node) or `edge` */
  role: 'server' | 'edge';
  /** whether the host has sign-in keys (`account.publicKey`) */
  accountsConfigured: boolean;
  /** a publisher token the host accepts (list and publish objects) */
  publisherToken?: string;
  /** a registry token the host accepts (writes under /v2/ then answer 405 instead of 401) */
  registryToken?: string;
  /** run only the cases this returns true for */
  filter?: (c: ConformanceCase) => boolean;
}

/** One case's outcome on one host. */
export interface CaseResult {
  name: string;
  area: string;
  /** empty when the case passed */
  failures: string[];
  /** the normalised answer, for comparing hosts */
  observed: Observation;
}

/** An answer with everything host-bound replaced: what two hosts must agree on. */
export interface Observation {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ConformanceReport {
  baseUrl: string;
  results: CaseResult[];
  /** `case: message` for every failed check */
  failures: string[];
}

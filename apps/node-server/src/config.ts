import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ServePolicy, SourceConfig } from '@hub/core-index';
import { indexStoreKind } from '@hub/hub';
import type { SigningConfig } from '@hub/model-signing/node';
import { CliError } from './cli-framework.js';
import { DEFAULT_HOST } from './listen.js';

/** The config file (JSON via `--config` or `HUB_CONFIG`); design section 8. */
export interface HubConfigFile {
  port?: number;
  host?: string;
  dataDir?: string;
  /** The public origin (`https://models.example.org`): absolute URLs are built from it, never from `Host`. */
  baseUrl?: string;
  /**
   * Host names a loopback-bound hub answers besides loopback names (DNS rebinding guard; issue 19). A leading dot
   * allows a name and its subdomains (`.example.org`).
   */
  allowedHosts?: string[];
  /** Behind a reverse proxy: scheme and host come from `Forwarded` / `X-Forwarded-Proto` / `X-Forwarded-Host`. */
  trustProxy?: boolean;
  /** The whole request header block must arrive within this (default 20). */
  headersTimeoutSeconds?: number;
  /** The whole request, body included, must arrive within this (default 120). */
  requestTimeoutSeconds?: number;
  /** Open connections allowed from one remote address (default 256); more are closed at once. */
  maxConnectionsPerAddress?: number;
  sources?: Array<Partial<SourceConfig> & { name: string }>;
  order?: string[];
  probeIntervalSeconds?: number;
  /** One probe must finish within this (default 10). */
  probeTimeoutSeconds?: number;
  /** First re-check of a failing source (default 40), doubling up to `probeRetryMaxSeconds` (default 3600). */
  probeRetrySeconds?: number;
  probeRetryMaxSeconds?: number;
  /** Sources probed at the same time (default 4). */
  probeConcurrency?: number;
  account?: {
    publicKey: string | Record<string, unknown>;
    issuer?: string;
    audience?: string;
    siteOrigin?: string;
    /** Write limit per account (a token bucket): `burst` writes at once (default 20), refilled `perSecond` (default 1). */
    writes?: { burst?: number; perSecond?: number };
  };
  /**
   * Accounts in PostgreSQL (`postgres://USER:PASSWORD@HOST:PORT/DB`; or the environment's `DATABASE_URL`) instead of
   * `accounts.sqlite` in the data folder: what several `hub serve` processes share (issue 41). Never logged whole.
   */
  database?: string;
  publisherTokens?: string[];
  registryTokens?: string[];
  /** The most bytes one bucket may hold in all (default 1 GiB). */
  bucketMaxBytes?: number;
  /** Which store serves the day: `auto` (default: the pages from 20,000 models), `memory` or `paged` (design 11.1). */
  indexStore?: string;
  /**
   * Megabytes every cache of the process may hold in all (default 128; or `HUB_CACHE_MB`), shared out as
   * core-index's `cacheBudget` says: half for the index pages and models, a fifth each for kept answers and objects,
   * a tenth for rows and search pages. A whole index (`memory`) is held besides, not counted here.
   */
  cacheMegabytes?: number;
  /**
   * Several processes on one data folder (issue 41): a lease (`DIR/locks/*.lock`: the probe rounds, the refresh
   * build) whose holder is killed is taken over within this many seconds (default 30).
   */
  leaseSeconds?: number;
  /** Seed the bundled demo index into an empty data folder (default true). */
  demo?: boolean;
  /** Port of the demo mirror (default: the hub's port + 1; 0 picks a free one). */
  demoMirrorPort?: number;
  /**
   * Redirect only to mirrors and the sources named here (default: true in a data folder filled by `hub bundle
   * import`, false otherwise): on a closed network the index's public hosts cannot be reached.
   */
  airGapped?: boolean;
  /** Port of the data folder's mirror (`DIR/mirror`; default: the next free port after the hub's). */
  localMirrorPort?: number;
  logLevel?: string;
  /**
   * The Ed25519 key file(s) that sign the transparency log's checkpoint (`hub keys generate` writes one); overrides
   * HUB_SIGNING_KEY_FILE. Several: each signs (a key rotation). Never logged.
   */
  signingKey?: string | string[];
  /** Serve `GET /metrics` (Prometheus text) on its own listener at this port (default: off; 0 picks a free one). */
  metricsPort?: number;
  /** The metrics listener's address (default 127.0.0.1: loopback only). */
  metricsHost?: string;
  /** Serve `GET /metrics` on the main port too, only to `Authorization: Bearer <metricsToken>` (default: off). */
  metricsToken?: string;
  /** One structured access-log line per request: method, route pattern, status, ms, source, bytes (default false). */
  logRequests?: boolean;
  /**
   * What the hub refuses to serve (docs/verification.md): `refuseScanLevels`, `refuseFailedSignatures`,
   * `requireSignature` [{models, identity, issuer}]. A refused file answers 403 PolicyRefused on every dialect.
   */
  policy?: ServePolicy;
  /**
   * What the index run checks a repo's model.sig against: `trustedRoot` (a Sigstore trusted_root.json replacing the
   * pinned public-good one), `keys` [{name, publicKey}] and `certificateAuthorities` [{name, certificate}] (PEM or path).
   */
  signing?: SigningConfig;
}

export interface ResolvedConfig extends HubConfigFile {
  port: number;
  host: string;
  dataDir: string;
  logLevel: string;
}

/** A configuration that cannot work: one line and exit 2, as every user mistake (cli-framework.ts). */
export class ConfigError extends CliError {}

export function readConfigFile(file: string): HubConfigFile {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`Cannot read the config file ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new ConfigError(`The config file ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError(`The config file ${file} must hold a JSON object.`);
  return parsed as HubConfigFile;
}

/**
 * Merge, lowest first: defaults, the config file, the environment (`HOST`, `PORT`, `HUB_DATA`, `HUB_CONFIG`,
 * `HUB_LOG_LEVEL`), then command-line flags. The default address is loopback (`127.0.0.1`); `HOST=0.0.0.0` puts the
 * hub on every network interface (a public deployment, a container).
 */
export function resolveConfig(
  flags: { port?: string; data?: string; config?: string; host?: string },
  env: NodeJS.ProcessEnv = process.env,
  fromFile: HubConfigFile = configFileOf(flags, env),
): ResolvedConfig {
  const port = nonEmpty(flags.port) ?? nonEmpty(env.PORT) ?? fromFile.port ?? 8080;
  const portNumber = Number(port);
  if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535)
    throw new ConfigError(`Port ${port} is not a port number (0-65535).`);
  // The file's values are checked by settings-check.ts (checkConfig, which the commands and startServer call); here
  // only what the environment adds.
  if (nonEmpty(env.HUB_INDEX_STORE) !== undefined) {
    try {
      indexStoreKind(nonEmpty(env.HUB_INDEX_STORE), 'HUB_INDEX_STORE');
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  }
  const cacheFromEnv = nonEmpty(env.HUB_CACHE_MB);
  const cacheMegabytes = cacheFromEnv !== undefined ? Number(cacheFromEnv) : undefined;
  if (cacheMegabytes !== undefined && !(Number.isFinite(cacheMegabytes) && cacheMegabytes > 0))
    throw new ConfigError(`HUB_CACHE_MB must be a positive number of megabytes (default 128), not ${JSON.stringify(cacheFromEnv)}.`);
  const database = nonEmpty(env.DATABASE_URL) ?? fromFile.database;
  if (nonEmpty(env.DATABASE_URL) !== undefined) {
    const problem = databaseProblem(nonEmpty(env.DATABASE_URL));
    if (problem) throw new ConfigError(`DATABASE_URL ${problem}.`);
  }
  return {
    ...fromFile,
    ...(database !== undefined ? { database } : {}),
    ...(cacheMegabytes !== undefined ? { cacheMegabytes } : {}),
    port: portNumber,
    host: nonEmpty(flags.host) ?? nonEmpty(env.HOST) ?? nonEmpty(fromFile.host) ?? DEFAULT_HOST,
    dataDir: path.resolve(flags.data ?? env.HUB_DATA ?? fromFile.dataDir ?? '.hub-data'),
    logLevel: env.HUB_LOG_LEVEL ?? fromFile.logLevel ?? 'info',
    ...((nonEmpty(env.HUB_INDEX_STORE) ?? fromFile.indexStore) ? { indexStore: nonEmpty(env.HUB_INDEX_STORE) ?? fromFile.indexStore } : {}),
  };
}

/** The config file named by `--config` or `HUB_CONFIG`, as written (nothing when neither names one). */
export function configFileOf(flags: { config?: string }, env: NodeJS.ProcessEnv = process.env): HubConfigFile {
  const file = flags.config ?? env.HUB_CONFIG;
  return file ? readConfigFile(file) : {};
}

/** An unset or blank value (`HOST=` in a shell) counts as not given. */
function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** Why `url` cannot name a PostgreSQL database, or undefined; the message never repeats the value (a password). */
export function databaseProblem(url: unknown): string | undefined {
  let protocol = '';
  try {
    protocol = new URL(String(url)).protocol;
  } catch {
    protocol = '';
  }
  if (typeof url !== 'string' || (protocol !== 'postgres:' && protocol !== 'postgresql:'))
    return 'must be a PostgreSQL URL (postgres://USER:PASSWORD@HOST:5432/DATABASE)';
  return undefined;
}

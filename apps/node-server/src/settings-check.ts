/**
 * Every value a user gives the hub is checked here, once, before anything listens or writes: the config file's keys
 * and their values, the environment's settings, option values and dates. A mistake is one line and exit 2
 * (ConfigError or UsageError, both answered by the CLI layer), never a stack trace and never a hub half started.
 *
 * Unknown config keys are refused, not warned about (docs/decisions/operations.md): a typo in `trustProxy`,
 * `airGapped`, `signingKey` or `metricsToken` would otherwise change what the hub does without a word.
 */

import { existsSync } from 'node:fs';
import { DEFAULT_SOURCES, type HostPolicy, HostSettingsError, hostPolicyFrom, PolicyConfigError, parsePolicy } from '@hub/core-index';
import { INDEX_STORE_KINDS, indexStoreKind, mergeSources } from '@hub/hub';
import { loadTrust } from '@hub/model-signing/node';
import { CliError, UsageError } from './cli-framework.js';
import { ConfigError, configFileOf, databaseProblem, type HubConfigFile, type ResolvedConfig, resolveConfig } from './config.js';
import { checkProbeConfig } from './prober.js';

/** A value's problem (`must be true or false`), or undefined when it is usable. */
type Check = (v: unknown) => string | undefined;

const bool: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
const text: Check = (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'must be a non-empty string');
const texts: Check = (v) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'must be a list of strings');
const port: Check = (v) =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? undefined : 'must be a port number (0-65535)';
const positive: Check = (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? undefined : 'must be a positive number');
const whole: Check = (v) => (Number.isInteger(v) && (v as number) > 0 ? undefined : 'must be a whole number ≥ 1');
const hostSetting: Check = () => undefined;
const object: Check = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'must be an object');
const either =
  (...checks: Check[]): Check =>
  (v) =>
    checks.every((c) => c(v) !== undefined) ? checks.map((c) => c(v)).join(', or ') : undefined;

/** pino's levels, the ones `HUB_LOG_LEVEL` and `logLevel` take. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const level: Check = (v) => (LOG_LEVELS.includes(v as never) ? undefined : `must be one of ${LOG_LEVELS.join(', ')}`);

const sources: Check = (v) => {
  if (!Array.isArray(v)) return 'must be a list of sources ([{"name": …, "kind": …, "url": …}])';
  for (const [i, s] of v.entries()) {
    if (object(s)) return `[${i}] must be an object with a name`;
    const e = s as Record<string, unknown>;
    if (typeof e.name !== 'string' || e.name === '') return `[${i}] needs a "name"`;
    if (e.url !== undefined && typeof e.url !== 'string') return `${e.name}: "url" must be a string (a URL template)`;
  }
  return undefined;
};

/**
 * Every key of the config file with the check of its value. Typed over `keyof HubConfigFile`: a key added to the
 * interface without a check here does not compile, so no key can be read that is not checked.
 */
const CONFIG_KEYS: { [K in keyof Required<HubConfigFile>]: Check } = {
  port,
  host: text,
  dataDir: text,
  // read (and refused) by core-index's hostPolicyFrom, as on the edge
  baseUrl: hostSetting,
  allowedHosts: hostSetting,
  trustProxy: hostSetting,
  headersTimeoutSeconds: positive,
  requestTimeoutSeconds: positive,
  maxConnectionsPerAddress: whole,
  sources,
  order: texts,
  probeIntervalSeconds: positive,
  probeTimeoutSeconds: positive,
  probeRetrySeconds: positive,
  probeRetryMaxSeconds: positive,
  probeConcurrency: whole,
  database: (v) => databaseProblem(v),
  indexStore: (v) => {
    // a blank value is refused here as before (indexStoreKind reads it as the default, `auto`)
    if (typeof v !== 'string' || v.trim() === '') return `must be one of ${INDEX_STORE_KINDS.join(', ')}`;
    try {
      indexStoreKind(v, 'indexStore');
      return undefined;
    } catch {
      return `must be one of ${INDEX_STORE_KINDS.join(', ')} (got ${JSON.stringify(v.slice(0, 40))})`;
    }
  },
  // every key checked by checkVerdictSettings below (parsePolicy and the signing trust)
  policy: object,
  signing: object,
  leaseSeconds: (v) =>
    typeof v === 'number' && v >= 0.1 && v <= 3600 ? undefined : 'must be a number of seconds from 0.1 to 3600 (default 30)',
  cacheMegabytes: positive,
  account: (v) => {
    if (object(v)) return object(v);
    const a = v as { publicKey?: unknown; writes?: unknown };
    if (a.publicKey === undefined) return 'needs "publicKey"';
    const w = a.writes as { burst?: unknown; perSecond?: unknown } | undefined;
    const above0 = (n: unknown) => n === undefined || (typeof n === 'number' && Number.isFinite(n) && n > 0);
    if (w !== undefined && (typeof w !== 'object' || w === null || !above0(w.burst) || !above0(w.perSecond)))
      return '.writes must be {"burst": N, "perSecond": N} with numbers above 0 (default 20 and 1)';
    return undefined;
  },
  publisherTokens: texts,
  registryTokens: texts,
  bucketMaxBytes: whole,
  demo: bool,
  demoMirrorPort: port,
  airGapped: bool,
  localMirrorPort: port,
  logLevel: level,
  signingKey: either(text, texts),
  metricsPort: port,
  metricsHost: text,
  metricsToken: (v) =>
    typeof v === 'string' && v.length >= 16 && !/\s/.test(v)
      ? undefined
      : 'must be at least 16 characters without spaces (a long random string)',
  logRequests: bool,
};

/** The known key nearest to a mistyped one (same letters in another case, or at most two edits away). */
function nearest(key: string): string | undefined {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++)
        next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length] as number;
  };
  let best: [string, number] | undefined;
  for (const k of Object.keys(CONFIG_KEYS)) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0 : distance(k, key);
    if (d <= 2 && (!best || d < best[1])) best = [k, d];
  }
  return best?.[0];
}

/**
 * The config's keys and values, checked: an unknown key (with the known one it nearly spells), a value of the wrong
 * type, a source entry or probe setting that cannot work, a host setting that cannot be used. `where` names the file.
 */
export function checkConfig(config: HubConfigFile, where = 'config'): void {
  for (const [key, value] of Object.entries(config)) {
    const check = (CONFIG_KEYS as Record<string, Check>)[key];
    if (!check) {
      const near = nearest(key);
      throw new ConfigError(`${where}: unknown key "${key}"${near ? ` (did you mean "${near}"?)` : ''}; the keys are listed in README.md`);
    }
    if (value === undefined) continue;
    const problem = check(value);
    // a problem of a member (`.writes must …`) follows its key without a space
    if (problem) throw new ConfigError(`${where}: ${key}${problem.startsWith('.') ? '' : ' '}${problem}`);
  }
  checkVerdictSettings(config);
  hostPolicyOf(config, config.host ?? '127.0.0.1', where);
  checkProbeConfig(mergeSources(config.sources ?? [], []));
}

/** The host settings as the host policy reads them: core-index's `hostPolicyFrom`, the one reader both hosts call. */
export function hostPolicyOf(config: HubConfigFile, listenHost: string, where = 'config'): HostPolicy {
  try {
    return hostPolicyFrom({ listenHost, baseUrl: config.baseUrl, allowedHosts: config.allowedHosts, trustProxy: config.trustProxy });
  } catch (e) {
    if (e instanceof HostSettingsError) throw new ConfigError(`${where}: ${e.message}`);
    throw e;
  }
}

/** The serving policy and the signing trust must be usable as given (every key checked), or the start fails with one line. */
function checkVerdictSettings(c: HubConfigFile): void {
  try {
    parsePolicy(c.policy);
  } catch (e) {
    if (e instanceof PolicyConfigError) throw new ConfigError(e.message);
    throw e;
  }
  if (c.signing === undefined) return;
  const s = c.signing as unknown;
  if (typeof s !== 'object' || s === null || Array.isArray(s))
    throw new ConfigError('signing must be an object ({trustedRoot?, keys?, certificateAuthorities?}).');
  const known = new Set(['trustedRoot', 'keys', 'certificateAuthorities']);
  for (const k of Object.keys(s)) if (!known.has(k)) throw new ConfigError(`signing.${k} is not a signing key (${[...known].join(', ')}).`);
  const named = (v: unknown, field: string) =>
    v === undefined || (Array.isArray(v) && v.every((e) => typeof e?.name === 'string' && e.name !== '' && typeof e?.[field] === 'string'));
  if (!named(c.signing.keys, 'publicKey'))
    throw new ConfigError('signing.keys must be a list of {name, publicKey} (PEM text or a path to a PEM file).');
  if (!named(c.signing.certificateAuthorities, 'certificate'))
    throw new ConfigError('signing.certificateAuthorities must be a list of {name, certificate} (PEM text or a path to a PEM file).');
  if (c.signing.trustedRoot !== undefined && typeof c.signing.trustedRoot !== 'string')
    throw new ConfigError('signing.trustedRoot must be the path of a Sigstore trusted_root.json.');
  try {
    loadTrust(c.signing);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/**
 * `order` names only sources the hub knows: configured ones, the built-in ones, the hub's own mirrors and the ones
 * the index names (`known`). Called where those are known, before the hub listens.
 */
export function checkOrder(config: HubConfigFile, known: Iterable<string>): void {
  if (!config.order) return;
  const names = new Set<string>([...DEFAULT_SOURCES.map((s) => s.name), ...(config.sources ?? []).map((s) => s.name), ...known]);
  const unknown = config.order.filter((n) => !names.has(n));
  if (unknown.length)
    throw new ConfigError(
      `config: order names ${unknown.map((n) => `"${n}"`).join(', ')}, not a source of this hub (${[...names].join(', ')})`,
    );
}

/**
 * The configuration of a command, checked whole: the file (`--config`, `HUB_CONFIG`), the environment (`PORT`,
 * `HUB_LOG_LEVEL`, …) and the flags. Every server-side command reads its configuration through this.
 */
export function checkedSettings(
  flags: { port?: string; data?: string; config?: string; host?: string },
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConfig {
  const fromFile = configFileOf(flags, env);
  checkConfig(fromFile, flags.config ?? env.HUB_CONFIG ?? 'config');
  if (env.HUB_LOG_LEVEL !== undefined && level(env.HUB_LOG_LEVEL))
    throw new ConfigError(`HUB_LOG_LEVEL=${env.HUB_LOG_LEVEL.slice(0, 40)}: ${level(env.HUB_LOG_LEVEL)}`);
  return resolveConfig(flags, env, fromFile);
}

// ---- option values ------------------------------------------------------------------------------------------------

/** A whole number from 1 to `max`, or undefined when the option is not given. */
export function wholeOption(name: string, v: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
    throw new UsageError(
      max === Number.MAX_SAFE_INTEGER ? `${name} takes a whole number ≥ 1` : `${name} must be a whole number from 1 to ${max}`,
    );
  return Number(v);
}

/**
 * `--date YYYY-MM-DD`: a day of the calendar, not after today (UTC). An index is dated by the day it was built; a
 * day that does not exist would date its snapshot at 0, and a future day would pass every later build by.
 */
export function checkDay(v: string, now = Date.now(), name = '--date'): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) throw new UsageError(`${name} must be YYYY-MM-DD`);
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (new Date(t).toISOString().slice(0, 10) !== v) throw new UsageError(`${name} ${v} is not a day of the calendar`);
  const today = new Date(now).toISOString().slice(0, 10);
  if (v > today) throw new UsageError(`${name} ${v} is after today (${today}, UTC): an index cannot be dated in the future`);
  return v;
}

/** The placeholders a source's URL template takes. */
const PLACEHOLDERS = ['id', 'owner', 'name', 'revision', 'path', 'sha256'];

/**
 * `--source NAME=URL_TEMPLATE` (repeatable): a name, an http(s) URL, only known placeholders, and one that names the
 * file (`{path}` or `{sha256}`); without it every file of a model would have one URL.
 */
export function sourceOptions(values: string[] | undefined): Array<{ name: string; url: string }> {
  return (values ?? []).map((s) => {
    const i = s.indexOf('=');
    if (i <= 0) throw new UsageError(`--source ${s}: expected NAME=URL_TEMPLATE`);
    const name = s.slice(0, i);
    const url = s.slice(i + 1);
    if (!/^https?:\/\/[^\s/]+/.test(url)) throw new UsageError(`--source ${s}: the template must be an http(s) URL`);
    const unknown = [...url.matchAll(/\{([^}]*)\}/g)].map((m) => m[1] as string).filter((p) => !PLACEHOLDERS.includes(p));
    if (unknown.length) throw new UsageError(`--source ${s}: unknown placeholder {${unknown[0]}} (known: {${PLACEHOLDERS.join('} {')}})`);
    if (!url.includes('{path}') && !url.includes('{sha256}'))
      throw new UsageError(`--source ${s}: the template names no file; put {path} or {sha256} in it (https://mirror.example/{id}/{path})`);
    return { name, url };
  });
}

export interface UpstreamValues {
  upstream?: string;
  top?: string;
  date?: string;
  source?: string[];
  modelscope?: string;
  'model-concurrency'?: string;
  'request-concurrency'?: string;
  'small-file-cap'?: string;
  fresh?: boolean;
}

/** The upstream read token: `HF_TOKEN` first (as huggingface_hub and huggingface.js read it), then `HUB_UPSTREAM_TOKEN`. */
export function upstreamToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const t = env.HF_TOKEN?.trim() || env.HUB_UPSTREAM_TOKEN?.trim();
  return t || undefined;
}

/** The upstream build's options (`hub index build --upstream`, `hub serve --refresh`), checked before anything runs. */
export function upstreamSettings(values: UpstreamValues) {
  const upstream = values.upstream as string;
  if (!/^https?:\/\/[^\s/]+/.test(upstream)) throw new UsageError(`--upstream ${upstream}: expected a URL such as https://huggingface.co`);
  if (values.date) checkDay(values.date);
  const ms = values.modelscope;
  if (ms !== undefined && ms !== 'off' && !/^https?:\/\//.test(ms)) throw new UsageError(`--modelscope ${ms}: expected a URL or off`);
  const sources = sourceOptions(values.source);
  const top = wholeOption('--top', values.top, 10_000);
  const modelConcurrency = wholeOption('--model-concurrency', values['model-concurrency'], 64);
  const requestConcurrency = wholeOption('--request-concurrency', values['request-concurrency'], 64);
  const cap = wholeOption('--small-file-cap', values['small-file-cap'], 1024 * 1024 * 1024);
  return {
    upstream,
    ...(top ? { top } : {}),
    ...(values.date ? { date: values.date } : {}),
    ...(ms !== undefined ? { modelscope: ms === 'off' ? (false as const) : ms } : {}),
    sources,
    ...(modelConcurrency ? { modelConcurrency } : {}),
    ...(requestConcurrency ? { requestConcurrency } : {}),
    ...(cap ? { smallFileCap: cap } : {}),
    ...(values.fresh ? { fresh: true } : {}),
    ...(process.env.HUB_CODE_COMMIT ? { codeCommit: process.env.HUB_CODE_COMMIT } : {}),
    // A read token for the upstream (higher rate limits): HF_TOKEN as the host's own clients read it, or
    // HUB_UPSTREAM_TOKEN. Sent to the upstream's origin only, never logged.
    ...(upstreamToken() ? { token: upstreamToken() as string } : {}),
  };
}

/** A read-only command's data folder must exist: a mistyped `--data` is not created, it is refused. */
export function existingDataDir(cfg: ResolvedConfig): ResolvedConfig {
  if (!existsSync(cfg.dataDir)) throw new CliError(`no data folder at ${cfg.dataDir}: name one with --data DIR (or HUB_DATA)`);
  return cfg;
}

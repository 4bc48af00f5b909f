/** Every `hub` command but the client ones (`get`, `verify-cache`), loaded by cli.ts only when needed. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { StartPack } from '@hub/core-index';
import { buildFromDir } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import { installFastBlake3 } from './blake3-node.js';
import { BUCKETS_HELP, bucketsGetCommand, bucketsPutCommand } from './cli-buckets.js';
import { GET_HELP, VERIFY_CACHE_HELP } from './cli-get.js';
import {
  CliError,
  objectsPutCommand,
  SERVE_REFRESH_OPTIONS,
  serveRefresh,
  UPSTREAM_BUILD_OPTIONS,
  upstreamBuildCommand,
} from './cli-index-run.js';
import { MIRROR_HELP } from './cli-mirror.js';
import { spacesPutCommand } from './cli-spaces.js';
import { ConfigError, resolveConfig } from './config.js';
import { createLogger } from './logger.js';
import { probeOnce, probeSettingsFrom } from './prober.js';
import { sourcesFromConfig, startServer } from './server.js';
import { startPrepared, verifyStore } from './verify.js';

const HELP = `hub — a read-only hub for open model files

Usage:
  hub serve [--port N] [--data DIR] [--config FILE] [--host ADDR]
            [--refresh daily|hourly|<N>h [--refresh-at HH:MM] [--upstream URL] [--top N]]
      Start the hub (default port 8080, data in ./.hub-data). An empty data folder is seeded
      with the bundled demo index, and a demo mirror serves its bytes on the next port.
      --refresh runs the upstream index build on a timer (daily at 03:00 UTC by default) and
      switches to the new index without a restart.
  hub index build --from-dir DIR --source NAME=URL_TEMPLATE [--source …] [--data DIR] [--date YYYY-MM-DD]
      Index a local tree laid out as {owner}/{name}/…; every file is hashed with SHA-256.
      URL_TEMPLATE takes {id}, {owner}, {name}, {revision}, {path}.
  hub index build --upstream URL [--top N] [--data DIR] [--date YYYY-MM-DD] [--modelscope URL|off]
                  [--source NAME=URL_TEMPLATE] [--model-concurrency N] [--request-concurrency N] [--fresh]
      Today's index of the N (default 500) trending public models of a model host (or a mirror of
      its API): trees with SHA-256, small files hashed, GGUF headers read, sources found (ModelScope
      by SHA-256, IPFS from pins.json in the data folder), archived and chained to the last day.
      Resumable: run it again after a crash and it reuses finished models.
  hub objects put FILE --kind KIND --token TOKEN [--url BASE] [--media-type TYPE]
      Publish a file as an object (over 16 MiB: 16 MiB chunks and a chunked record); prints its address.
  hub spaces put DIR --name NAME --token TOKEN [--url BASE] [--title T] [--about TEXT] [--entry FILE]
      Publish a folder as a space (a browser-only app): every file as an object, then the space
      object sealing them under one root; it becomes /spaces/NAME/ (and stays at /spaces/ROOT/).
${BUCKETS_HELP}  hub index verify [--data DIR]
      Re-hash every object, check every catalog's references, walk the archive chain. Exit 1 on any fault.
  hub probe [--data DIR] [--config FILE]
      Probe every configured source that has a probe file once, now, and print a table
      (source, ok, reason, HTTP status, milliseconds) and save the results in the data folder
      (a hub started on it restores them). Exit 1 when any probed source fails.
${GET_HELP}${VERIFY_CACHE_HELP}${MIRROR_HELP}  hub --help

Environment: PORT, HUB_DATA, HUB_CONFIG, HUB_LOG_LEVEL (override the config file).
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`hub: ${message}\n`);
  process.exit(code);
}

function progressLine(text: string) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${text}`);
}

async function main(argv: string[]) {
  const [command, sub] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (command === 'serve') {
    const { values } = parseArgs({
      args: argv.slice(1),
      options: {
        port: { type: 'string' },
        data: { type: 'string' },
        config: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean' },
        ...SERVE_REFRESH_OPTIONS,
      },
    });
    if (values.help) return void process.stdout.write(HELP);
    const cfg = resolveConfig(values);
    const log = createLogger({ level: cfg.logLevel });
    const running = await startServer({ dataDir: cfg.dataDir, port: cfg.port, host: cfg.host, config: cfg, logger: log });
    const refresher = serveRefresh(values, cfg, running, log);
    let closing = false;
    const shutdown = (signal: string) => {
      if (closing) return;
      closing = true;
      log.info({ signal }, 'shutting down');
      refresher?.stop();
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      running.close().then(() => process.exit(0));
    };
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    return;
  }
  if (command === 'index' && sub === 'build') {
    const { values } = parseArgs({
      args: argv.slice(2),
      options: {
        'from-dir': { type: 'string' },
        source: { type: 'string', multiple: true },
        data: { type: 'string' },
        date: { type: 'string' },
        config: { type: 'string' },
        upstream: { type: 'string' },
        top: { type: 'string' },
        ...UPSTREAM_BUILD_OPTIONS,
      },
    });
    installFastBlake3();
    const cfg = resolveConfig({ ...(values.data ? { data: values.data } : {}), ...(values.config ? { config: values.config } : {}) });
    if (values.upstream && values['from-dir']) fail('index build takes --from-dir or --upstream, not both');
    if (values.upstream) process.exit(await upstreamBuildCommand(values, cfg));
    const dir = values['from-dir'];
    if (!dir) fail('index build needs --from-dir DIR (see hub --help)');
    const sources = (values.source ?? []).map((s) => {
      const i = s.indexOf('=');
      if (i <= 0) fail(`--source ${s}: expected NAME=URL_TEMPLATE`);
      return { name: s.slice(0, i), url: s.slice(i + 1) };
    });
    if (sources.length === 0) fail('index build needs at least one --source NAME=URL_TEMPLATE: the place the bytes can be fetched from');
    if (values.date && !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) fail('--date must be YYYY-MM-DD');
    const log = createLogger({ level: cfg.logLevel, destination: process.stderr as never });
    const store = new FsObjectStore(cfg.dataDir);
    const started = Date.now();
    const pack = new StartPack();
    const result = await buildFromDir(store, {
      dir: path.resolve(dir),
      onObject: pack.add,
      sources,
      // The rebuild cache: unchanged files (same size, times and inode) are not read again on the next build.
      cacheFile: path.join(cfg.dataDir, 'cache', 'from-dir.json'),
      ...(values.date ? { date: values.date } : {}),
      log,
      progress: (done, total, file) => progressLine(`hashing ${done}/${total} ${file.slice(-60)}`),
    });
    progressLine('');
    // What the first start needs (the load pack, the verified ref), from the objects just hashed: no re-hash at start.
    await startPrepared(store, cfg.dataDir, result.catalog, pack, log);
    process.stdout.write(
      `${JSON.stringify({ catalog: result.catalog, models: result.models, files: result.files, bytes: result.bytes, date: result.day.date, seconds: (Date.now() - started) / 1000 })}\n`,
    );
    return;
  }
  if (command === 'objects' && sub === 'put') {
    installFastBlake3();
    process.exit(await objectsPutCommand(argv.slice(2)));
  }
  if (command === 'buckets' && sub === 'put') {
    process.exit(await bucketsPutCommand(argv.slice(2)));
  }
  if (command === 'buckets' && sub === 'get') {
    process.exit(await bucketsGetCommand(argv.slice(2)));
  }
  if (command === 'spaces' && sub === 'put') {
    installFastBlake3();
    process.exit(await spacesPutCommand(argv.slice(2)));
  }
  if (command === 'probe') {
    const { values } = parseArgs({ args: argv.slice(1), options: { data: { type: 'string' }, config: { type: 'string' } } });
    const cfg = resolveConfig(values);
    const sources = sourcesFromConfig(cfg);
    const { table, ok } = await probeOnce({
      sources,
      order: cfg.order ?? sources.map((s) => s.name),
      settings: probeSettingsFrom(cfg),
      dataDir: cfg.dataDir,
    });
    process.stdout.write(table);
    process.exit(ok ? 0 : 1);
  }
  if (command === 'index' && sub === 'verify') {
    const { values } = parseArgs({ args: argv.slice(2), options: { data: { type: 'string' }, config: { type: 'string' } } });
    installFastBlake3();
    const cfg = resolveConfig(values);
    const report = await verifyStore(new FsObjectStore(cfg.dataDir), (n) => progressLine(`verified ${n} objects`));
    progressLine('');
    for (const f of report.faults) process.stdout.write(`FAULT ${f}\n`);
    process.stdout.write(`${report.objects} objects, ${report.catalogs} catalogs, ${report.faults.length} faults\n`);
    process.exit(report.faults.length ? 1 : 0);
  }
  fail(`unknown command "${argv.join(' ')}"; see hub --help`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof CliError) fail(e.message);
  fail(e instanceof Error ? (e.stack ?? e.message) : String(e), 1);
});

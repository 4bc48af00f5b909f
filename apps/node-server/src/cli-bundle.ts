/**
 * `hub bundle create|import` (design 10.3): the day's index carried across an air gap with a mirror of chosen models
 * beside it. The options, the commands and their code; bundle.ts and the client are imported when a command runs.
 */
import { command, type OptionSpecs, type Parsed, runWith, UsageError } from './cli-framework.js';
import { CONFIG, DATA } from './cli-options.js';
import { choosePull, fileReporter, type MirrorIo, PULL_OPTIONS, processMirrorIo, pullArgs } from './pull-choice.js';

export const BUNDLE_CREATE_OPTIONS = {
  ...PULL_OPTIONS,
  'from-mirror': { type: 'string', arg: 'DIR', help: 'Take files already in this mirror (each re-hashed) instead of downloading them.' },
} as const satisfies OptionSpecs;

export const BUNDLE_CREATE = command({
  name: 'bundle create',
  interrupted: 'The mirror keeps what it verified (bundle.json comes last): run the same command again to resume.',
  summary: "Write the hub's index (as published) and a mirror of chosen models, to carry across an air gap.",
  usage: ['OUT (MODEL[:QUANT]… | --top N) --hub URL [--from-mirror DIR] [--max-bytes SIZE] [--parallel N]'],
  description: `Write OUT: the hub's index objects exactly as published (same addresses, earlier days included),
its archive, and a mirror of the chosen models' files (OUT/mirror). Resumable; OUT/bundle.json is
written last. Carry OUT to a network that cannot reach the hub and run "hub bundle import" there.`,
  options: BUNDLE_CREATE_OPTIONS,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'the bundle folder (OUT)' },
  run: (args) => bundleCreateRun(args, processMirrorIo()),
});

export const BUNDLE_IMPORT_OPTIONS = { data: DATA, config: CONFIG } as const satisfies OptionSpecs;

export const BUNDLE_IMPORT = command({
  name: 'bundle import',
  summary: 'Check every object and file of a bundle, then take it into a data folder.',
  usage: ['IN --data DIR [--config FILE]'],
  description: `Check every object of a bundle against its BLAKE3 address and every file against its SHA-256, then
put them into DIR (objects, DIR/mirror) and switch DIR to the bundle's day. A later day's bundle imports
on top; an interrupted import resumes when run again. The index store the config names (indexStore or
HUB_INDEX_STORE) decides how the day is prepared for its first start: its pages opened, or the whole
index loaded once. "hub serve --data DIR" then serves that index and the mirror (on the next port), and redirects
to nothing else unless the config names it (airGapped).`,
  options: BUNDLE_IMPORT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'the bundle folder (IN)' },
  run: (args) => bundleImportRun(args, processMirrorIo()),
});

/** `hub bundle create OUT (MODEL… | --top N) --hub URL [--from-mirror DIR] [--max-bytes SIZE] [--parallel N]` */
async function bundleCreateRun({ values, positionals }: Parsed<typeof BUNDLE_CREATE_OPTIONS>, io: MirrorIo): Promise<number> {
  const [out = '', ...refs] = positionals;
  const args = pullArgs(values, refs, () => {
    const hub = values.hub ?? io.env.HUB_URL;
    if (!hub) throw new UsageError('name the hub with --hub URL (or HUB_URL)');
    return hub;
  });
  const { bars, opts, models } = await choosePull(args, io);
  (await import('./blake3-node.js')).installFastBlake3();
  const { bundleCreate } = await import('./bundle.js');
  const result = await bundleCreate(opts, out, models, {
    onObjects: (n) => (io.tty ? io.err(`\r\x1b[2Kfetched ${n} index objects`) : undefined),
    parallel: args.parallel,
    onFile: fileReporter(io),
    ...(values['from-mirror'] ? { fromMirror: values['from-mirror'] } : {}),
  });
  if (io.tty) bars.draw();
  const line = { event: 'done', ...result };
  io.tty
    ? io.err(
        `bundle ${out}: ${result.objects} objects of ${result.date} (${result.catalog}), ${result.files} files, ${result.failed} failed\n`,
      )
    : io.out(JSON.stringify(line));
  return result.failed > 0 ? 1 : 0;
}

/** `hub bundle import IN --data DIR` */
async function bundleImportRun({ values, positionals }: Parsed<typeof BUNDLE_IMPORT_OPTIONS>, io: MirrorIo): Promise<number> {
  const input = positionals[0] ?? '';
  const { checkedSettings } = await import('./settings-check.js');
  const cfg = checkedSettings(
    { ...(values.data ? { data: values.data } : {}), ...(values.config ? { config: values.config } : {}) },
    io.env,
  );
  (await import('./blake3-node.js')).installFastBlake3();
  const { bundleImport } = await import('./bundle.js');
  const result = await bundleImport(input, cfg.dataDir, {
    progress: (what) => (io.tty ? io.err(`\r\x1b[2K${what}`) : undefined),
    ...(cfg.indexStore ? { indexStore: cfg.indexStore } : {}),
  });
  if (io.tty) io.err('\r\x1b[2K');
  const line = { event: 'done', ...result };
  io.tty
    ? io.err(
        `imported ${result.date} (${result.catalog}): ${result.objectsNew} new objects of ${result.objects}, ${result.filesNew} new files of ${result.files}\n`,
      )
    : io.out(JSON.stringify(line));
  return 0;
}

export const bundleCreateCommand = (argv: string[], io: MirrorIo) => runWith(BUNDLE_CREATE, argv, io, bundleCreateRun);
export const bundleImportCommand = (argv: string[], io: MirrorIo) => runWith(BUNDLE_IMPORT, argv, io, bundleImportRun);

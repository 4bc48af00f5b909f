/**
 * The `hub` CLI's help and usage layer: every command declares its name, usage, options and positionals once (in
 * its group's file, listed by cli-commands.ts); this layer answers `--help` (exit 0), `hub --version`, and turns a usage mistake (an unknown
 * option, a missing value or argument, a value out of range) into one line plus the command's usage and exit 2,
 * never a stack trace (the `gh` and `hf` CLIs are the anchors). It imports nothing heavy: a command's code is loaded
 * only when that command runs (`hub get` starts without the server's modules).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** One option of a command. `arg` names its value in the help (`--data DIR`); `help` is one line. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  arg?: string;
  help: string;
  /**
   * A boolean option that may take a value: the next argument is its value when this accepts it
   * (`hub get … --hf-cache [DIR]`). The parsed value is then that string, otherwise `true`.
   */
  optionalValue?: (next: string) => boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S['optionalValue'] extends (next: string) => boolean
  ? string | true
  : S['type'] extends 'string'
    ? S['multiple'] extends true
      ? string[]
      : string
    : boolean;

export type Values<O extends OptionSpecs> = { [K in keyof O]?: ValueOf<O[K]> };

export interface Parsed<O extends OptionSpecs> {
  values: Values<O>;
  positionals: string[];
}

/** Where a command writes; tests pass their own. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  tty: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * A command. `run` returns the exit code, or `undefined` for a command that keeps running (`serve`). Its code is
 * imported inside `run`, so declaring a command costs nothing at start-up.
 */
export interface Command<O extends OptionSpecs = OptionSpecs> {
  /** The words after `hub`: `'serve'`, `'index build'`. */
  name: string;
  /** One line for the command list of `hub --help`. */
  summary: string;
  /** The synopsis lines, each without the leading `hub NAME`. */
  usage: string[];
  /** What it does, in a few lines (shown by `hub NAME --help`). */
  description: string;
  options: O;
  /** How many positionals it takes (default none). */
  positionals?: { min?: number; max?: number; name?: string };
  run: (args: Parsed<O>, io: CliIo) => Promise<number | undefined>;
  /** Long work that can be resumed: what Ctrl-C prints after "interrupted" (how to resume, what was kept). */
  interrupted?: string;
}

/** Declares a command with its option types inferred. */
export function command<const O extends OptionSpecs>(c: Command<O>): Command<O> {
  return c;
}

/**
 * The hub the client commands talk to when neither an option nor `HUB_URL` names one: where `hub serve` listens by
 * default (loopback; `127.0.0.1` rather than `localhost`, which may resolve to `::1` first). Written once, as
 * huggingface.js writes its `HUB_URL`; the environment is read over it.
 */
export const DEFAULT_HUB_URL = 'http://127.0.0.1:8080';

/** The hub a client command talks to: its option, else `HUB_URL`, else {@link DEFAULT_HUB_URL}; no trailing slash. */
export function hubUrlOf(option: string | undefined, env: NodeJS.ProcessEnv): string {
  return (option || env.HUB_URL?.trim() || DEFAULT_HUB_URL).replace(/\/+$/, '');
}

/** A mistake in what the user typed: one line, the command's usage, exit 2. */
export class UsageError extends Error {}

/** A user's mistake that needs no usage (a file that cannot be read, a token missing): one line, exit 2. */
export class CliError extends Error {}

/** The value an option takes in the help's option list: `--data DIR`, `--fresh`, `--hf-cache [DIR]`. */
function optionLabel(name: string, o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : ''}--${name}`;
  if (o.optionalValue) return `${flag} [${o.arg ?? 'VALUE'}]`;
  return o.type === 'string' ? `${flag} ${o.arg ?? 'VALUE'}` : flag;
}

const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', help: 'Show this help.' };

/** The synopsis; a usage line that starts with a space continues the line above it. */
function usageLines(c: Command): string[] {
  const head = `hub ${c.name}`;
  return c.usage.map((u, i) => {
    const lead = i === 0 ? 'Usage: ' : '       ';
    return u.startsWith(' ') ? `${lead}${' '.repeat(head.length)}${u}` : `${lead}${head}${u ? ` ${u}` : ''}`;
  });
}

/** The short usage printed under a usage mistake. */
export function usageText(c: Command): string {
  return `${usageLines(c).join('\n')}\nRun 'hub ${c.name} --help' for every option.\n`;
}

/** `hub NAME --help`. */
export function helpText(c: Command): string {
  const opts = Object.entries({ ...c.options, help: HELP_OPTION });
  const labels = opts.map(([n, o]) => optionLabel(n, o));
  const width = Math.min(32, Math.max(...labels.map((l) => l.length)) + 2);
  const lines = opts.map(([, o], i) => {
    const label = labels[i] as string;
    return label.length + 2 > width ? `  ${label}\n  ${' '.repeat(width)}${o.help}` : `  ${label.padEnd(width)}${o.help}`;
  });
  return `${usageLines(c).join('\n')}\n\n${c.description.trim()}\n\nOptions:\n${lines.join('\n')}\n`;
}

/** A one-line reason out of parseArgs' errors (whose messages carry advice on several lines). */
function parseMessage(e: Error & { code?: string }): string {
  const first = (e.message.split('\n')[0] ?? '').trim();
  const opt = /'(-{1,2}[^']+)'/.exec(first)?.[1] ?? /Option '([^']+)'/.exec(first)?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${opt ?? first}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return first.includes('argument missing') ? `${(opt ?? '').split(' ')[0] || 'an option'} needs a value` : first;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']+)'/.exec(first)?.[1] ?? first}`;
    default:
      return first;
  }
}

/** Parses `argv` against a command's options and positionals; a mistake throws `UsageError`. */
export function parseCommand<O extends OptionSpecs>(c: Command<O>, argv: string[]): Parsed<O> {
  const args = [...argv];
  const optional: Record<string, string | true> = {};
  for (const [name, o] of Object.entries(c.options)) {
    if (!o.optionalValue) continue;
    const i = args.indexOf(`--${name}`);
    if (i === -1) continue;
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('-') && o.optionalValue(next)) {
      optional[name] = next;
      args.splice(i, 2);
    } else {
      optional[name] = true;
      args.splice(i, 1);
    }
  }
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, o] of Object.entries(c.options)) {
    if (o.optionalValue) continue;
    config[name] = { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) };
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: config, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(parseMessage(e as Error));
  }
  const { min = 0, max = 0, name = 'argument' } = c.positionals ?? {};
  const n = parsed.positionals.length;
  if (n < min) throw new UsageError(`missing ${name}`);
  if (n > max)
    throw new UsageError(max === 0 ? `unexpected argument ${parsed.positionals[max]}` : `too many arguments (${n}; at most ${max})`);
  return { values: { ...parsed.values, ...optional } as Values<O>, positionals: parsed.positionals };
}

/** `--help` or `-h` before a `--`. */
function asksHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

function errorLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}

/** Runs one command on `argv` (the words after its name); returns the exit code, or `undefined` while it runs. */
export async function runCommand<O extends OptionSpecs>(c: Command<O>, argv: string[], io: CliIo): Promise<number | undefined> {
  if (asksHelp(argv)) {
    io.out(helpText(c as unknown as Command));
    return 0;
  }
  // Ctrl-C during long work says what was kept and how to go on (exit 130, as a shell reports SIGINT).
  const onInterrupt = () => {
    io.err(`\nhub ${c.name}: interrupted. ${c.interrupted}\n`);
    process.exit(130);
  };
  if (c.interrupted) process.once('SIGINT', onInterrupt);
  try {
    return await c.run(parseCommand(c, argv), io);
  } catch (e) {
    const mistake = mistakeAnswer(c, e, io.err);
    if (mistake !== undefined) return mistake;
    // Not the user's mistake: one line, the stack only when asked for.
    io.err(`hub ${c.name}: ${errorLine(e)}\n`);
    if (io.env.HUB_DEBUG && e instanceof Error && e.stack) io.err(`${e.stack}\n`);
    else io.err('(set HUB_DEBUG=1 to see where it failed)\n');
    return 1;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * The one answer to a user's mistake: a `UsageError` is one line and the command's usage, a `CliError` (a
 * `ConfigError` too) one line; both exit 2. Anything else is not the user's mistake: undefined.
 */
function mistakeAnswer<O extends OptionSpecs>(c: Command<O>, e: unknown, err: (text: string) => void): 2 | undefined {
  if (e instanceof UsageError) err(`hub ${c.name}: ${e.message}\n${usageText(c as unknown as Command)}`);
  else if (e instanceof CliError) err(`hub ${c.name}: ${e.message}\n`);
  else return undefined;
  return 2;
}

/**
 * A command on its arguments with its own terminal (`hub get`'s, the mirror commands'): parsed, run, and a user's
 * mistake answered as {@link runCommand} answers it; anything else is thrown to the caller.
 */
export async function runWith<O extends OptionSpecs, I extends { err: (text: string) => void }>(
  c: Command<O>,
  argv: string[],
  io: I,
  run: (args: Parsed<O>, io: I) => Promise<number>,
): Promise<number> {
  try {
    return await run(parseCommand(c, argv), io);
  } catch (e) {
    const mistake = mistakeAnswer(c, e, io.err);
    if (mistake === undefined) throw e;
    return mistake;
  }
}

/** The version of the `hub` binary: the nearest package.json above this file (src/ in tests, dist/ when built). */
export function cliVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@hub/node-server' && pkg.version) return pkg.version;
    } catch {
      // not there: try one folder up
    }
  }
  return 'unknown';
}

/** `hub --help`: every command, grouped by its first word, with its summary. */
export function overviewText(commands: readonly Command[], intro: string, footer: string): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 4;
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return `${intro.trim()}\n\nUsage: hub COMMAND [options]\n\nCommands:\n${lines.join('\n')}\n\n${footer.trim()}\n`;
}

/**
 * The whole CLI: finds the command named by the first words of `argv` (the longest match), and answers `--help`,
 * `--version`, a group without its subcommand (`hub index`) and an unknown command.
 */
export async function runCli(
  commands: readonly Command[],
  argv: string[],
  io: CliIo,
  text: { intro: string; footer: string },
): Promise<number | undefined> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || (first === 'help' && second === undefined)) {
    io.out(overviewText(commands, text.intro, text.footer));
    return 0;
  }
  if (first === '--version' || first === '-V' || first === 'version') {
    io.out(`hub ${cliVersion()}\n`);
    return 0;
  }
  // `hub help index build` is `hub index build --help`
  const words = first === 'help' ? argv.slice(1) : argv;
  const helpWanted = first === 'help';
  const byName = [...commands].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  for (const c of byName) {
    const parts = c.name.split(' ');
    if (parts.every((p, i) => words[i] === p)) {
      const rest = words.slice(parts.length);
      return runCommand(c, helpWanted ? ['--help'] : rest, io);
    }
  }
  const group = commands.filter((c) => c.name.startsWith(`${words[0]} `));
  if (group.length > 0) {
    const list = group.map((c) => `  hub ${c.name.padEnd(Math.max(...group.map((g) => g.name.length)) + 2)}${c.summary}`).join('\n');
    const sub = words[1];
    if (sub === undefined || sub === '--help' || sub === '-h' || helpWanted) {
      const out = `Usage: hub ${words[0]} COMMAND [options]\n\nCommands:\n${list}\n\nRun 'hub ${words[0]} COMMAND --help' for a command's options.\n`;
      if (sub === '--help' || sub === '-h' || helpWanted) {
        io.out(out);
        return 0;
      }
      io.err(`hub ${words[0]}: name a command (${group.map((c) => c.name.split(' ')[1]).join(', ')})\n${out}`);
      return 2;
    }
    io.err(`hub ${words[0]}: unknown command "${sub}"\n${list}\n`);
    return 2;
  }
  io.err(`hub: unknown command "${words[0]}"\nRun 'hub --help' for the commands.\n`);
  return 2;
}

/** The process's terminal as a `CliIo`. */
export const processIo: CliIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  tty: Boolean(process.stderr.isTTY),
  env: process.env,
};

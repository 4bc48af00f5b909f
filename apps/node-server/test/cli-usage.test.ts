import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli-commands.js';
import { runCli } from './helpers.js';

/**
 * Every command of the table, run as a user runs it (the built binary in a child process): `--help` answers the
 * command's own usage and options with exit 0; an unknown option, a missing value and a missing argument are one
 * line naming the mistake, then the command's usage, exit 2 and no stack trace. A command added to the table is
 * covered here without a line of this file changing.
 */
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PKG = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const hub = (args: string[]) => runCli(args);

/** What a Node stack trace or an uncaught error report looks like. */
const STACK = /\n\s+at |node:internal|ERR_PARSE_ARGS|TypeError|^Error:/m;

describe.skipIf(!existsSync(CLI)).concurrent('help and usage of every command (needs the built CLI: pnpm test builds first)', () => {
  it('hub --version prints the package version; hub and hub --help list every command', async () => {
    const v = await hub(['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `hub ${PKG.version}\n` });
    for (const args of [[], ['--help'], ['help']]) {
      const r = await hub(args);
      expect(r.code).toBe(0);
      for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name} `);
    }
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))('hub %s --help exits 0 with its usage and every option', async (name, c) => {
    const r = await hub([...name.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.startsWith(`Usage: hub ${name}`)).toBe(true);
    for (const o of Object.keys(c.options)) expect(r.stdout).toContain(`--${o}`);
    // `hub help NAME` is the same page
    expect((await hub(['help', ...name.split(' ')])).stdout).toBe(r.stdout);
  });

  it.each(COMMANDS.map((c) => [c.name] as const))('hub %s with an unknown option: one line, the usage, exit 2', async (name) => {
    const r = await hub([...name.split(' '), '--no-such-option']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const [first, second] = r.stderr.split('\n');
    expect(first).toBe(`hub ${name}: unknown option --no-such-option`);
    expect(second?.startsWith(`Usage: hub ${name}`)).toBe(true);
    expect(r.stderr).not.toMatch(STACK);
  });

  it.each(
    COMMANDS.filter((c) => Object.values(c.options).some((o) => o.type === 'string' && !o.optionalValue)).map((c) => {
      const opt = Object.entries(c.options).find(([, o]) => o.type === 'string' && !o.optionalValue)?.[0] as string;
      return [c.name, opt] as const;
    }),
  )('hub %s --%s without its value: one line, the usage, exit 2', async (name, opt) => {
    const r = await hub([...name.split(' '), `--${opt}`]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`hub ${name}: --${opt} needs a value`);
    expect(r.stderr).toContain(`Usage: hub ${name}`);
    expect(r.stderr).not.toMatch(STACK);
  });

  it.each(COMMANDS.filter((c) => (c.positionals?.min ?? 0) > 0).map((c) => [c.name] as const))(
    'hub %s without its argument: one line, the usage, exit 2',
    async (name) => {
      const r = await hub(name.split(' '));
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^hub ${name}: missing `));
      expect(r.stderr).toContain(`Usage: hub ${name}`);
      expect(r.stderr).not.toMatch(STACK);
    },
  );

  it('an unknown command, a group without its command and a bad value are one line and exit 2, never a stack', async () => {
    const unknown = await hub(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('hub: unknown command "frobnicate"');
    const group = await hub(['index']);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('hub index build');
    expect((await hub(['index', '--help'])).code).toBe(0);
    const badSub = await hub(['index', 'frob']);
    expect(badSub).toMatchObject({ code: 2 });
    expect(badSub.stderr.split('\n')[0]).toBe('hub index: unknown command "frob"');
    const badDate = await hub(['index', 'build', '--from-dir', '.', '--source', 'm=http://m.test/{path}', '--date', 'soon']);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr.split('\n')[0]).toBe('hub index build: --date must be YYYY-MM-DD');
    const badConfig = await hub(['index', 'verify', '--config', '/nonexistent/hub.json']);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    for (const r of [unknown, group, badSub, badDate, badConfig]) expect(r.stderr).not.toMatch(STACK);
  });
});

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@hub/node-toolkit';
import pg from 'pg';

/**
 * A real PostgreSQL for tests (Debian's `postgresql`): its own data directory, port and socket folder in a temp
 * folder, on 127.0.0.1, with password authentication over TCP, started without a service manager and stopped by
 * its own pid. As root the server runs as the `postgres` user (PostgreSQL refuses root).
 */

/** The folder holding `initdb` and `postgres`, or undefined when PostgreSQL is not installed. */
export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const bin = path.join(base, v, 'bin');
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

export interface TestPostgres {
  /** `postgres://hub:PASSWORD@127.0.0.1:PORT/hub` */
  url: string;
  password: string;
  port: number;
  pid: number;
  /** A fresh empty database on this server, as a URL. */
  freshDatabase(): Promise<string>;
  /** A direct query (for checking what the hub wrote). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values?: unknown[], url?: string): Promise<R[]>;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-pg-'));
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
  await writeFile(path.join(dir, 'pw'), password, { mode: 0o600 });
  if (owner) chownSync(path.join(dir, 'pw'), owner.uid, owner.gid);
  execFileSync(
    path.join(bin, 'initdb'),
    [
      '-D',
      path.join(dir, 'data'),
      '-U',
      'hub',
      `--pwfile=${path.join(dir, 'pw')}`,
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ],
    { ...as, stdio: 'ignore', cwd: dir },
  );
  const port = await freePort();
  const args = ['-D', path.join(dir, 'data'), '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
  const child: ChildProcess = spawn(path.join(bin, 'postgres'), [...args, '-c', 'max_connections=200'], {
    ...as,
    stdio: 'ignore',
    cwd: dir,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `postgres://hub:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.query('CREATE DATABASE hub');
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => {});
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PostgreSQL did not start: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  let n = 0;
  const at = (db: string) => `postgres://hub:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
  const query = async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = [], on = at('hub')): Promise<R[]> => {
    const c = new pg.Client({ connectionString: on });
    await c.connect();
    try {
      return (await c.query<R>(sql, values)).rows;
    } finally {
      await c.end();
    }
  };
  return {
    url: at('hub'),
    password,
    port,
    pid: child.pid as number,
    async freshDatabase() {
      const name = `t${++n}`;
      await query(`CREATE DATABASE ${name}`, [], url);
      return at(name);
    },
    query,
    async stop() {
      // SIGINT: PostgreSQL's fast shutdown (clients are disconnected, the server exits cleanly).
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(
      execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    );
  return { uid: id('-u'), gid: id('-g') };
}

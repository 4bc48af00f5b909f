// SYNTHETIC byte sources on loopback for the `hub get` tests (get-sources.test.ts, get-ranges.test.ts), the real hub
// over them, and the CLI run against it: one server that honours Range (`bytes=N-` and `bytes=N-M`) and, as its mode
// says, lies, stalls, cuts, goes slowly, ignores Range or starts failing.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildIndex } from '@hub/core-index';
import { FsObjectStore } from '@hub/objects/node';
import { getCommand } from '../src/cli-get.js';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * `ok`: the right bytes; `lie`: wrong bytes of the right length in every answer; `lie-once`: its first range answer
 * has one byte flipped; `corrupt`: its copy has byte `corruptAt` flipped (every answer holding it); `stall`: half the
 * answer, then nothing; `cut`: its first whole-file answer ends at 60 % (the connection destroyed); `slow`: 64 KiB
 * every 60 ms per answer; `no-range`: ignores Range; `fail-later`: answers its first request, then 503 to every one.
 */
export type Mode = 'ok' | 'lie' | 'lie-once' | 'corrupt' | 'stall' | 'cut' | 'slow' | 'no-range' | 'fail-later';

/** What a source saw and does: `log` holds each request's Range (`full` without one); `mode` may be changed. */
export interface SourceState {
  mode: Mode;
  lied: boolean;
  log: string[];
}

/** Cleanups of the sources, hubs and folders made here, run by each test file's `afterEach(cleanUp)`. */
const cleanups: Array<() => Promise<unknown>> = [];
export async function cleanUp(): Promise<void> {
  while (cleanups.length) await cleanups.pop()?.();
}

/** A file of the model: its path and bytes. The source answers a URL by the file whose path it ends with, else the first. */
export interface SourceFile {
  path: string;
  bytes: Buffer;
}

async function byteSource(files: SourceFile[], initial: Mode, corruptAt: number) {
  const state: SourceState = { mode: initial, lied: false, log: [] };
  const server = http.createServer((req, res) => {
    const body = (files.find((f) => req.url?.endsWith(`/${f.path}`)) ?? files[0])?.bytes ?? Buffer.alloc(0);
    state.log.push(req.headers.range ?? 'full');
    if (state.mode === 'fail-later' && state.log.length > 1) return void res.writeHead(503).end();
    const m = state.mode === 'no-range' ? null : /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m?.[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    let part = state.mode === 'lie' ? Buffer.alloc(end + 1 - start, 1) : body.subarray(start, end + 1);
    if (state.mode === 'lie-once' && m && !state.lied) {
      state.lied = true;
      part = Buffer.from(part);
      const at = Math.floor(part.length / 2);
      part[at] = (part[at] as number) ^ 0xff;
    }
    if (state.mode === 'corrupt' && start <= corruptAt && corruptAt <= end) {
      part = Buffer.from(part);
      part[corruptAt - start] = (part[corruptAt - start] as number) ^ 0xff;
    }
    res.writeHead(m ? 206 : 200, {
      'content-length': String(part.length),
      ...(m ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    if (state.mode === 'stall') return void res.write(part.subarray(0, Math.floor(part.length / 2)));
    if (state.mode === 'cut' && !m && state.log.filter((l) => l === 'full').length === 1) {
      res.write(part.subarray(0, Math.floor(part.length * 0.6)));
      return void setTimeout(() => res.destroy(), 50);
    }
    if (state.mode !== 'slow') return void res.end(part);
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(part.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
      if (at >= part.length) {
        clearInterval(timer);
        res.end();
      }
    }, 60);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { state, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * A real hub whose index says every named source holds every file of `model`, in the given order; each source serves
 * under `template` (`{id}/{path}` by default). `corruptAt` is the byte a `corrupt` source flips.
 */
export async function hubWith(
  model: { id: string; date: string; files: SourceFile[] },
  sources: Array<[string, Mode]>,
  opts: { template?: string; corruptAt?: number } = {},
): Promise<{ hub: TestHub; state: Record<string, SourceState> }> {
  const started = await Promise.all(
    sources.map(async ([name, mode]) => ({ name, ...(await byteSource(model.files, mode, opts.corruptAt ?? -1)) })),
  );
  const dataDir = await tempDir('hub-get-data-');
  await buildIndex(new FsObjectStore(dataDir), {
    date: model.date,
    models: [
      {
        id: model.id,
        license: 'mit',
        files: model.files.map((f) => ({ path: f.path, size: f.bytes.length, sha256: createHash('sha256').update(f.bytes).digest('hex') })),
        sources: started.map((s) => ({ source: s.name, type: 'http' as const })),
      },
    ],
  });
  const template = opts.template ?? '{id}/{path}';
  const hub: TestHub = await startTestHub({
    dataDir,
    config: {
      demo: false,
      sources: started.map((s) => ({ name: s.name, display: s.name, token: s.name, kind: 'http' as const, url: `${s.base}/${template}` })),
      order: started.map((s) => s.name),
    },
  });
  cleanups.push(() => hub.close());
  return { hub, state: Object.fromEntries(started.map((s) => [s.name, s.state])) };
}

/** A temp folder, removed after the test. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `hub get ARGS` in this process, off a terminal: its exit code, its JSON lines, and the `file` line. */
export async function runGet(args: string[]) {
  const out: string[] = [];
  const code = await getCommand(args, { out: (l) => out.push(l), err: () => {}, tty: false, env: {} });
  const events = out.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, events, file: events.find((e) => e.event === 'file') as Record<string, unknown> | undefined };
}

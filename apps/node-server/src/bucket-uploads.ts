import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@hub/core-index';
import { BUSY, isUploadId, type UploadSessionStore, type UploadState } from '@hub/dialect-oci';
import { releaseLease, renewLease, syncDir, tryTakeLease, withFileLock, writeDurable } from '@hub/objects/node';

/**
 * The open blob uploads of bucket pushes in the data folder (docs/decisions/spaces-and-buckets.md "Upload sessions
 * shared by every process"), so that every process on the folder (`hub serve --workers N`, replicas behind a load
 * balancer) continues a push another one started:
 *
 *   uploads/<uuid>/state.json   {repository, received, reserved}; its mtime is when the session last had a request
 *   uploads/<uuid>/bytes        the bytes written so far; only the first `received` of them count
 *   uploads/locks/<name>.lock   a session's lock (`<uuid>.lock`) or a bucket's (`bucket-<name>.lock`): leases
 *
 * A session appears whole (its folder is made under a temp name and renamed) and disappears whole (renamed away, then
 * deleted). A chunk is written and flushed, then the new length is recorded by temp file + rename: a process killed
 * mid-write leaves bytes past the recorded length, which the next write overwrites. Only a checked uuid (the form
 * `crypto.randomUUID()` makes) or a checked lock name ever becomes a path.
 */
const LOCK_NAME = /^bucket-[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
/** A folder left by a process killed while making a session is dropped after this long. */
const ORPHAN_MS = 60 * 60 * 1000;
const PIECE = 8 * 1024 * 1024;

interface StateFile {
  repository: string;
  received: number;
  reserved: number;
}

function isStateFile(v: unknown): v is StateFile {
  const s = v as StateFile;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.repository === 'string' &&
    Number.isSafeInteger(s.received) &&
    s.received >= 0 &&
    Number.isSafeInteger(s.reserved) &&
    s.reserved >= 0
  );
}

const gone = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

export interface FsUploadSessionsOptions {
  /** A lock whose holder stopped renewing it is taken over after three quarters of this (default 30 s). */
  leaseMs?: number;
}

export class FsUploadSessions implements UploadSessionStore {
  readonly #locks: string;
  readonly #leaseMs: number;

  constructor(
    private readonly root: string,
    options: FsUploadSessionsOptions = {},
  ) {
    this.#locks = path.join(root, 'locks');
    this.#leaseMs = options.leaseMs ?? 30_000;
  }

  /** The folder of session `uuid`; throws for anything that is not an upload id (the callers check first). */
  #dir(uuid: string): string {
    if (!isUploadId(uuid)) throw new Error('not an upload id');
    return path.join(this.root, uuid);
  }

  #lockFile(name: string): string {
    if (!isUploadId(name) && !(LOCK_NAME.test(name) && name.length <= 135)) throw new Error('not an upload lock name');
    return path.join(this.#locks, `${name}.lock`);
  }

  async create(state: UploadState): Promise<void> {
    const dir = this.#dir(state.uuid);
    await mkdir(this.root, { recursive: true });
    const temp = path.join(this.root, `.new-${state.uuid}`);
    await mkdir(temp);
    await writeDurable(path.join(temp, 'state.json'), stateBytes(state), 0o600);
    await setTime(path.join(temp, 'state.json'), state.touched);
    await rename(temp, dir);
    await syncDir(this.root);
  }

  async state(uuid: string): Promise<UploadState | undefined> {
    const file = path.join(this.#dir(uuid), 'state.json');
    try {
      const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
      const s: unknown = JSON.parse(text);
      if (!isStateFile(s)) return undefined;
      return { uuid, repository: s.repository, received: s.received, reserved: s.reserved, touched: info.mtimeMs };
    } catch {
      return undefined;
    }
  }

  async list(): Promise<UploadState[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return [];
    }
    const out: UploadState[] = [];
    for (const name of names) {
      if (isUploadId(name)) {
        const s = await this.state(name);
        if (s) out.push(s);
      } else if (name.startsWith('.gone-')) {
        await rm(path.join(this.root, name), { recursive: true, force: true }).catch(() => {});
      } else if (name.startsWith('.new-')) {
        const made = await stat(path.join(this.root, name)).catch(() => undefined);
        if (made && Date.now() - made.mtimeMs > ORPHAN_MS)
          await rm(path.join(this.root, name), { recursive: true, force: true }).catch(() => {});
      }
    }
    return out;
  }

  async record(state: UploadState): Promise<boolean> {
    const dir = this.#dir(state.uuid);
    const file = path.join(dir, 'state.json');
    const temp = path.join(dir, `.state-${randomUUID()}`);
    try {
      // no mkdir: a session removed meanwhile stays removed
      await writeDurable(temp, stateBytes(state), 0o600);
      await setTime(temp, state.touched);
      await rename(temp, file);
    } catch (e) {
      await rm(temp, { force: true }).catch(() => {});
      if (gone(e)) return false;
      throw e;
    }
    await syncDir(dir);
    return true;
  }

  async touch(uuid: string, now: number): Promise<void> {
    await setTime(path.join(this.#dir(uuid), 'state.json'), now).catch(() => {});
  }

  async write(uuid: string, at: number, bytes: Uint8Array): Promise<boolean> {
    let fh: Awaited<ReturnType<typeof open>>;
    try {
      fh = await open(path.join(this.#dir(uuid), 'bytes'), constants.O_RDWR | constants.O_CREAT, 0o600);
    } catch (e) {
      if (gone(e)) return false;
      throw e;
    }
    try {
      // What a killed write left past the recorded length is dropped, then the chunk goes where the upload stands.
      await fh.truncate(at);
      let done = 0;
      while (done < bytes.byteLength) {
        const { bytesWritten } = await fh.write(bytes, done, bytes.byteLength - done, at + done);
        done += bytesWritten;
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  }

  async read(uuid: string, length: number): Promise<Uint8Array | undefined> {
    let fh: Awaited<ReturnType<typeof open>>;
    try {
      fh = await open(path.join(this.#dir(uuid), 'bytes'), 'r');
    } catch {
      return length === 0 ? new Uint8Array() : undefined;
    }
    try {
      if ((await fh.stat()).size < length) return undefined;
      const out = new Uint8Array(length);
      let at = 0;
      while (at < length) {
        const { bytesRead } = await fh.read(out, at, Math.min(PIECE, length - at), at);
        if (bytesRead === 0) return undefined;
        at += bytesRead;
      }
      return out;
    } finally {
      await fh.close();
    }
  }

  async remove(uuid: string): Promise<void> {
    const dir = this.#dir(uuid);
    // Renamed away first: from here no process sees the session, whatever happens to the deletion.
    const away = path.join(this.root, `.gone-${uuid}-${randomUUID()}`);
    try {
      await rename(dir, away);
    } catch (e) {
      if (gone(e)) return;
      throw e;
    }
    // Out of sight already; what a failed or concurrent deletion leaves is deleted by the next listing.
    await rm(away, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
    // A lock a killed writer left on this session would stay forever: dropped when stale (a live holder's is fresh,
    // and a holder releases its own).
    const lock = this.#lockFile(uuid);
    const info = await stat(lock).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > (this.#leaseMs * 3) / 4) await rm(lock, { force: true });
  }

  async tryLock<T>(name: string, fn: () => Promise<T>): Promise<T | typeof BUSY> {
    const file = this.#lockFile(name);
    const owner = randomUUID();
    // A lock left by a killed process (not renewed for three quarters of the lease) is taken over here.
    if (!(await tryTakeLease(file, owner, this.#leaseMs))) return BUSY;
    const heartbeat = setInterval(() => void renewLease(file, owner), this.#leaseMs / 4);
    heartbeat.unref?.();
    try {
      return await fn();
    } finally {
      clearInterval(heartbeat);
      await releaseLease(file, owner);
    }
  }

  async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(this.#lockFile(name), fn, { leaseMs: this.#leaseMs });
  }
}

/**
 * Sweep the idle sessions (with their bytes) every `everyMs`, so an abandoned push's bytes go on time even when no
 * other push comes to sweep them. Every process on the folder sweeps; removing a session twice is harmless.
 */
export function sweepUploads(sweep: () => Promise<unknown>, log: Logger, everyMs = 60_000): { stop(): void } {
  const timer = setInterval(() => {
    sweep().catch((e: unknown) => log.warn({ err: String(e) }, 'sweeping idle bucket uploads failed'));
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function stateBytes(s: UploadState): string {
  return JSON.stringify({ repository: s.repository, received: s.received, reserved: s.reserved } satisfies StateFile);
}

async function setTime(file: string, ms: number): Promise<void> {
  const t = new Date(ms);
  await utimes(file, t, t);
}

import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fstatSync, openSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

/** Files up to this size are read in one read instead of a stream. */
export const SMALL_FILE = 1 << 20;

/** SHA-256 of a file, streamed: never the whole file in memory. */
export async function sha256File(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  // A small file in one read (a stream costs more than the hash for the config and README files of a tree).
  if ((await stat(file)).size <= SMALL_FILE) {
    const bytes = await readFile(file);
    return { sha256: hash.update(bytes).digest('hex'), size: bytes.byteLength };
  }
  return streamSha256(file);
}

async function streamSha256(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).byteLength;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * What identifies a file's content without reading it, as git's index does: size, modification and change times
 * (nanoseconds) and inode. The change time cannot be set from user space, so `touch -r` or an rsync that keeps
 * times still changes the stamp when it rewrites bytes.
 */
export interface FileStamp {
  size: number;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  dev: string;
  /** modification and change times in milliseconds, for the racy-entry rule of the rebuild cache */
  changedMs: number;
}

export function stampOf(st: { size: bigint; mtimeNs: bigint; ctimeNs: bigint; ino: bigint; dev: bigint }): FileStamp {
  return {
    size: Number(st.size),
    mtimeNs: String(st.mtimeNs),
    ctimeNs: String(st.ctimeNs),
    ino: String(st.ino),
    dev: String(st.dev),
    changedMs: Math.max(Number(st.mtimeNs / 1_000_000n), Number(st.ctimeNs / 1_000_000n)),
  };
}

export interface HashedFile {
  sha256: string;
  size: number;
  /** the file's stamp, taken before its bytes were read */
  stamp: FileStamp;
  /** a small file's first bytes (up to 4), to tell a GGUF file by its magic without another read */
  head?: Uint8Array;
}

/**
 * SHA-256 of a file and its stamp. A small file (≤ {@link SMALL_FILE}) is opened, stat'ed and read synchronously on
 * the calling thread: for the config and README files of a tree, four system calls cost less than four thread-pool
 * round trips. A bigger file is streamed (never whole in memory).
 */
export async function hashFileStamped(file: string): Promise<HashedFile> {
  const fd = openSync(file, 'r');
  let stamp: FileStamp;
  try {
    stamp = stampOf(fstatSync(fd, { bigint: true }));
    if (stamp.size <= SMALL_FILE) {
      const bytes = readFileSync(fd);
      return {
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: bytes.byteLength,
        stamp,
        head: bytes.subarray(0, 4),
      };
    }
  } finally {
    closeSync(fd);
  }
  const { sha256, size } = await streamSha256(file);
  return { sha256, size, stamp };
}

/**
 * Synchronous reads of immutable object files for the paged store (docs/decisions/scale-and-speed.md "Pages read at
 * once"): a small file in the operating system's page cache costs a few system calls on the main thread, far less than
 * the thread-pool trips of an asynchronous read.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/** Files up to this size are read in one `read` into a kept buffer (no `fstat`), then copied out at their size. */
const SMALL_FILE = 64 * 1024;
let scratch: Buffer | undefined;

/**
 * The whole file, or undefined when it cannot be read. An index page is small: one `open`, one `read` into a kept
 * buffer and one `close` (`readFileSync` also asks `fstat` for the size first and reads again at the end); a file
 * that fills the buffer is read whole the usual way.
 */
export function readWholeSync(file: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    scratch ??= Buffer.allocUnsafeSlow(SMALL_FILE);
    const n = readSync(fd, scratch, 0, SMALL_FILE, 0);
    if (n < SMALL_FILE) {
      // its own buffer of its size (Buffer.from would take a slice of a shared 8 KB pool, which a kept page would pin)
      const out = new Uint8Array(n);
      out.set(scratch.subarray(0, n));
      return out;
    }
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * `length` bytes of a file from byte `start` (a model inside its models page) with positioned reads; undefined when
 * the file is missing or shorter than the range.
 */
export function readRangeSync(file: string, start: number, length: number): Uint8Array | undefined {
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(length) && start >= 0 && length >= 0)) return undefined;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const out = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, out, got, length - got, start + got);
      if (n === 0) return undefined;
      got += n;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

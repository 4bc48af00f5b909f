/**
 * The bytes of one range answer on their way to the file: copied into 1 MiB batches, each written with one positional
 * write while the next fills (two per connection). A socket hands over its bytes in reads of tens to hundreds of KiB;
 * a write per read cost a ranged `hub get` more CPU than the copy (docs/benchmarks.md, issue 42).
 */

/** The size of a batch. */
export const BATCH_BYTES = 1 << 20;

export class PieceWriter {
  private buf: Uint8Array;
  private other: Uint8Array;
  private filled = 0;
  private pending: Promise<void> = Promise.resolve();

  /**
   * @param pool free batches, taken from and given back to (shared by the connections of a download)
   * @param start the file offset of the first byte put
   * @param write writes `bytes` at `at`; the batch is reused once its promise resolved
   */
  constructor(
    private readonly pool: Uint8Array[],
    private start: number,
    private readonly write: (at: number, bytes: Uint8Array) => Promise<void>,
  ) {
    this.buf = pool.pop() ?? new Uint8Array(BATCH_BYTES);
    this.other = pool.pop() ?? new Uint8Array(BATCH_BYTES);
  }

  /** Copy `chunk` (lent: copied before the promise resolves) after the bytes put before. */
  async put(chunk: Uint8Array): Promise<void> {
    for (let at = 0; at < chunk.byteLength; ) {
      const n = Math.min(chunk.byteLength - at, this.buf.byteLength - this.filled);
      this.buf.set(chunk.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.buf.byteLength) await this.flush();
    }
  }

  /** Start writing what is batched (after the write before it has ended). */
  private async flush(): Promise<void> {
    await this.pending;
    if (this.filled === 0) return;
    const b = this.buf;
    const at = this.start;
    this.pending = this.write(at, b.subarray(0, this.filled));
    this.start = at + this.filled;
    this.filled = 0;
    this.buf = this.other;
    this.other = b;
  }

  /** Write the rest and wait for every write; the batches go back to the pool. */
  async close(): Promise<void> {
    try {
      await this.flush();
      await this.pending;
    } finally {
      this.pool.push(this.buf, this.other);
    }
  }
}

/**
 * Bucket repositories are `hub/buckets/{name}` (design 9.2): three path segments, so a bucket can never
 * collide with a model `owner/name`.
 */
const BUCKET_NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const PREFIX = 'hub/buckets/';

/** The bucket name of a repository, or undefined when the repository is not a bucket. */
export function bucketOf(repository: string): string | undefined {
  if (!repository.startsWith(PREFIX)) return undefined;
  const name = repository.slice(PREFIX.length);
  return name.length <= 128 && BUCKET_NAME.test(name) ? name : undefined;
}

export function bucketRepository(name: string): string {
  return PREFIX + name;
}

/**
 * The `Content-Range` of a chunked PATCH as the distribution spec sends it (`START-END`, inclusive;
 * some clients prefix `bytes `). Undefined when it is not a range.
 */
export function parseChunkRange(value: string): { start: number; end: number } | undefined {
  const m = /^(?:bytes )?(\d{1,15})-(\d{1,15})$/.exec(value.trim());
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2]);
  return end >= start ? { start, end } : undefined;
}

/** Helpers both spaces share: the hub they are served from, and the model named in the URL. */

/**
 * The hub this space is served from. The space runs in an opaque origin (`location.origin` is
 * "null"), but its URL is the hub's: relative requests go to the same host, allowed by CORS `*`.
 */
export function hubUrl(path: string): string {
  return new URL(path, location.href).toString();
}

/** `owner/name` with each part percent-encoded. */
export function encodeId(id: string): string {
  return id
    .split('/')
    .map((p) => encodeURIComponent(p))
    .join('/');
}

/** The model named by `?model=owner/name` (or `#owner/name`), if any. */
export function modelFromUrl(): string {
  const q = new URLSearchParams(location.search).get('model');
  if (q) return q;
  return decodeURIComponent(location.hash.replace(/^#/, ''));
}

export interface TreeEntry {
  type: string;
  path: string;
  size: number;
  /** the SHA-256 of the file bytes, from the hub's index */
  oid: string;
}

/** Every file of a model at its indexed revision, from the hub's tree API. */
export async function modelTree(id: string): Promise<TreeEntry[]> {
  const res = await fetch(hubUrl(`/api/models/${encodeId(id)}/tree/main?recursive=true`));
  if (!res.ok) {
    let message = `${res.status}`;
    try {
      message = ((await res.json()) as { error?: string }).error ?? message;
    } catch {
      // not JSON
    }
    throw new Error(`The hub does not list ${id}: ${message}`);
  }
  return ((await res.json()) as TreeEntry[]).filter((e) => e.type === 'file');
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

const SAFE_PATH = /^[A-Za-z0-9._~\-/]*$/;

/** Percent-encode each path segment, keeping `/`. */
export function encodePath(path: string): string {
  if (SAFE_PATH.test(path)) return path;
  return path.split('/').map(encodeURIComponent).join('/');
}

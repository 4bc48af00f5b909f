import type { SignedManifest } from './statement.js';

/** The OMS spec's default exclusions (section 6.2), matched as top-level path components of the model root. */
export const DEFAULT_EXCLUSIONS = ['.git', '.gitignore', '.gitattributes', '.github'] as const;

export interface IndexedFile {
  path: string;
  sha256: string;
}

export interface Coverage {
  covered: number;
  /** indexed files the bundle does not list (after the exclusions) */
  unsigned: string[];
  /** listed files whose SHA-256 differs from the index's */
  mismatched: string[];
  /** listed files the index does not hold */
  missing: string[];
}

/** `path` is `entry` or lies under it (exact relative paths from the root, as section 6.2.1 matches them). */
function under(path: string, entry: string): boolean {
  const e = entry.replace(/^\.\//, '').replace(/\/+$/, '');
  return e !== '' && (path === e || path.startsWith(`${e}/`));
}

/**
 * Compares a signed `files` manifest with SHA-256 digests against the index's per-file SHA-256: what the reference
 * verifier does after hashing the files, with the hashes the index already holds. `bundlePath` (the signature file
 * itself) is excluded, as the spec requires of both signer and verifier.
 */
export function compareWithIndex(manifest: SignedManifest, files: readonly IndexedFile[], bundlePath: string): Coverage {
  const excluded = [...DEFAULT_EXCLUSIONS, ...manifest.ignorePaths, bundlePath];
  const scope = new Map<string, string>();
  for (const f of files) if (!excluded.some((e) => under(f.path, e))) scope.set(f.path, f.sha256.toLowerCase());
  const listed = new Set<string>();
  const mismatched: string[] = [];
  const missing: string[] = [];
  let covered = 0;
  for (const r of manifest.resources) {
    listed.add(r.name);
    const held = scope.get(r.name);
    if (held === undefined) missing.push(r.name);
    else if (held !== r.digest) mismatched.push(r.name);
    else covered++;
  }
  const unsigned = [...scope.keys()].filter((p) => !listed.has(p)).sort();
  return { covered, unsigned, mismatched: mismatched.sort(), missing: missing.sort() };
}

import {
  type CoreDeps,
  type FileRecord,
  type HubResponse,
  type IndexedModel,
  type Later,
  lookUp,
  type TreeEntry,
  whenReady,
} from '@hub/core-index';
import { repoNotFound, revisionNotFound } from './errors.js';

/**
 * Look-ups shared by every route of the dialect: the model, the revision, and the file entries.
 * Only the indexed revision is served; `main`, `HEAD` and `refs/heads/main` name it too.
 */

export type Found<T> = { ok: true; value: T } | { ok: false; response: HubResponse };

/** The model `owner/name`, or 404 `RepoNotFound` (recorded for the next index run); at once when the model is warm. */
export function findModel(deps: CoreDeps, owner: string, name: string): Later<Found<IndexedModel>> {
  const id = `${owner}/${name}`;
  return whenReady(lookUp(deps.index(), id), (model) =>
    model ? { ok: true, value: model } : { ok: false, response: repoNotFound(deps, id) },
  );
}

/** Names of the one branch (git names are case-sensitive, so exactly these spellings). */
const BRANCH_NAMES = new Set(['main', 'HEAD', 'refs/heads/main']);

/** Is `rev` a name of the indexed revision? `main`, `HEAD`, `refs/heads/main`, or the 40-hex commit (hex in any case). */
export function isServedRevision(model: IndexedModel, rev: string): boolean {
  if (BRANCH_NAMES.has(rev)) return true;
  return rev.length === 40 && rev.toLowerCase() === model.revision;
}

/** The model at a revision, or the dialect's 404. */
export function findRevision(deps: CoreDeps, owner: string, name: string, rev: string): Later<Found<IndexedModel>> {
  return whenReady(findModel(deps, owner, name), (found): Found<IndexedModel> => {
    if (!found.ok) return found;
    if (!isServedRevision(found.value, rev)) return { ok: false, response: revisionNotFound(found.value, rev) };
    return found;
  });
}

/**
 * Files the upstream keeps in LFS. The index records only path, size and SHA-256, so this follows the
 * upstream's default `.gitattributes` (weights, archives, serialised arrays, tokenizer models) plus
 * anything of 10 MiB or more (the upstream refuses larger non-LFS files).
 */
const LFS_EXTENSIONS =
  /\.(7z|arrow|bin|bz2|ckpt|ftz|gguf|gz|h5|joblib|lfs|mlmodel|model|msgpack|npy|npz|onnx|ot|parquet|pb|pickle|pkl|pt|pth|rar|safetensors|tar|tflite|tgz|wasm|xz|zip|zst)$/i;
const LFS_SIZE = 10 * 1024 * 1024;

export function isLfs(file: FileRecord): boolean {
  return file.size >= LFS_SIZE || LFS_EXTENSIONS.test(file.path) || /(^|\/)saved_model\/|\.gguf\.part\d+$|tfevents/.test(file.path);
}

/** The size of the git-lfs pointer file for a file of `size` bytes (`version …\noid sha256:…\nsize N\n`). */
export function pointerSize(size: number): number {
  // "version https://git-lfs.github.com/spec/v1\n" (43) + "oid sha256:<64>\n" (76) + "size " (5) + digits + "\n" (1)
  return 125 + String(size).length;
}

/** The commit facts reported as `lastCommit` (the index knows the indexed revision, not each file's last commit). */
export function lastCommit(model: IndexedModel, snapshot: string): { id: string; title: string; date: string } {
  const date = model.row.lastModified ?? model.row.createdAt ?? `${snapshot}T00:00:00.000Z`;
  return { id: model.revision, title: `Indexed revision ${model.revision.slice(0, 7)}`, date };
}

/** One TreeEntry: `oid` is the SHA-256 of the bytes, `lfs` on large files, never `xetHash`. */
export function treeEntry(model: IndexedModel, file: FileRecord, expand: boolean, snapshot: string): TreeEntry {
  const entry: TreeEntry = { type: 'file', oid: file.sha256, size: file.size, path: file.path };
  if (isLfs(file)) entry.lfs = { oid: file.sha256, size: file.size, pointerSize: pointerSize(file.size) };
  if (expand) {
    entry.lastCommit = lastCommit(model, snapshot);
    entry.securityFileStatus = securityFileStatus(model, file.path);
  }
  return entry;
}

/**
 * The host's `securityFileStatus` for one file, from the scan verdicts in the model object: the detail the host gave
 * for a flagged file, its level for a file with an issue, `safe` for the others once the scans are done, else
 * `unscanned`. `avScan` and `pickleImportScan` are always present (huggingface_hub reads both keys).
 */
export function securityFileStatus(model: IndexedModel, path: string): NonNullable<TreeEntry['securityFileStatus']> {
  const scan = model.object.scan;
  const kept = scan?.files?.[path];
  if (kept) return { status: kept.status, avScan: kept.avScan ?? null, pickleImportScan: kept.pickleImportScan ?? null };
  const issue = scan?.filesWithIssues.find((f) => f.path === path);
  return { status: issue?.level ?? (scan?.scansDone ? 'safe' : 'unscanned'), avScan: null, pickleImportScan: null };
}

/** The host's `securityRepoStatus` (`?securityStatus=true`): scans done, and each file with an issue and its level. */
export function securityRepoStatus(model: IndexedModel): { scansDone: boolean; filesWithIssues: Array<{ path: string; level: string }> } {
  const scan = model.object.scan;
  return { scansDone: scan?.scansDone ?? false, filesWithIssues: scan?.filesWithIssues ?? [] };
}

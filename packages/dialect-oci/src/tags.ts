import { defaultQuant, type FileRecord, type IndexedModel, isMmproj, quantOf } from '@hub/core-index';

/**
 * What one tag of a repository points at.
 * - `gguf`: one GGUF model (all its split parts, in order), with the projector that goes with it;
 * - `files`: every file of a non-GGUF model (the `latest` artifact).
 */
export type Target =
  | { kind: 'gguf'; id: string; quant?: string; file: FileRecord; parts: FileRecord[]; mmproj?: FileRecord }
  | { kind: 'files'; id: string; files: FileRecord[] };

export interface RepoTags {
  /** true when the model has at least one GGUF model file (not only projectors) */
  gguf: boolean;
  /** every target, each once */
  targets: Target[];
  /** the tags `tags/list` shows, in lexical order */
  list: string[];
  latest: Target;
  /** Case-insensitive tag look-up: a quantisation, a GGUF file name (with or without `.gguf`), `latest`. */
  lookup(tag: string): Target | undefined;
}

const GGUF = /\.gguf$/i;
const SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;
/** The OCI tag grammar (distribution-spec): only names that fit are listed. */
export const TAG_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
}

/** Projector precision preference when several mmproj files sit beside a model. */
const MMPROJ_PREFERENCE = ['F16', 'BF16', 'F32', 'Q8_0'];

function chooseMmproj(model: FileRecord, mmprojs: FileRecord[]): FileRecord | undefined {
  if (mmprojs.length === 0) return undefined;
  const dir = dirname(model.path);
  const rank = (f: FileRecord) => {
    const sameDir = dirname(f.path) === dir ? 0 : 1;
    const q = quantOf(f.path);
    const p = q ? MMPROJ_PREFERENCE.indexOf(q) : -1;
    return sameDir * 100 + (p === -1 ? MMPROJ_PREFERENCE.length : p);
  };
  // files are sorted by path, and sort is stable: ties keep path order
  return [...mmprojs].sort((a, b) => rank(a) - rank(b))[0];
}

/**
 * The tags of one model (design section 5, decisions in docs/decisions/dialects.md "OCI dialect"):
 * one per quantisation found in GGUF file names, each GGUF file name, and `latest`.
 * Projectors and later split parts are never tags of their own.
 */
export function repoTags(model: IndexedModel): RepoTags {
  const files = model.files; // sorted by path
  const ggufs = files.filter((f) => GGUF.test(f.path));
  const mmprojs = ggufs.filter((f) => isMmproj(f.path));
  const byTag = new Map<string, Target>();
  const listed = new Set<string>();
  const targets: Target[] = [];

  for (const f of ggufs) {
    if (isMmproj(f.path)) continue;
    let parts = [f];
    const split = SPLIT.exec(f.path);
    if (split) {
      // Only part 1 starts a target; its parts are those with the same prefix and count.
      if (split[2] !== '00001') continue;
      const [, prefix, , count] = split;
      parts = ggufs
        .filter((g) => {
          const s = SPLIT.exec(g.path);
          return !!s && s[1] === prefix && s[3] === count;
        })
        .sort((a, b) => (a.path < b.path ? -1 : 1));
    }
    const quant = quantOf(f.path);
    const mmproj = chooseMmproj(f, mmprojs);
    const target: Target = { kind: 'gguf', id: f.path, file: f, parts, ...(quant ? { quant } : {}), ...(mmproj ? { mmproj } : {}) };
    targets.push(target);
    // The first file (in path order) with a quantisation owns that quantisation's tag.
    if (quant && !byTag.has(quant.toLowerCase())) {
      byTag.set(quant.toLowerCase(), target);
      listed.add(quant);
    }
    const name = basename(f.path);
    for (const key of [name, name.replace(GGUF, '')]) if (!byTag.has(key.toLowerCase())) byTag.set(key.toLowerCase(), target);
    if (TAG_PATTERN.test(name)) listed.add(name);
  }

  let latest: Target;
  const gguf = targets.length > 0;
  if (gguf) {
    // the one default rule (core-index defaultQuant), shared with the site, MCP and hub get
    const q = defaultQuant(targets.map((t) => (t.kind === 'gguf' ? t.file.path : '')));
    latest = (q ? byTag.get(q.toLowerCase()) : undefined) ?? (targets[0] as Target);
  } else {
    latest = { kind: 'files', id: 'latest', files };
    targets.push(latest);
  }
  byTag.set('latest', latest);
  listed.add('latest');
  const list = [...listed].sort();
  return {
    gguf,
    targets,
    list,
    latest,
    lookup: (tag) => byTag.get(tag.toLowerCase()),
  };
}

import { defaultQuant, isMmproj, quantOf } from '@hub/core-index/light';

/** Which files of a model a request names: by quantisation, by exact path or glob. */

/** A glob (`*`, `**`, `?`) as a RegExp over the whole path. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * The GGUF files of one quantisation (all split parts), by the same rule as the OCI default tag and the
 * site: `quantOf` names the quantisation; without a `quant`, the first of QUANT_PREFERENCE present.
 */
export function selectQuant<F extends { path: string }>(files: F[], quant?: string): F[] {
  const ggufs = files.filter((f) => quantOf(f.path) && !isMmproj(f.path));
  let q = quant?.toUpperCase();
  if (!q) {
    // the one default rule (core-index defaultQuant), shared with ollama pull :latest, the site and MCP
    q = defaultQuant(ggufs.map((f) => f.path));
  }
  return ggufs.filter((f) => quantOf(f.path) === q);
}

/** Pick files by exact path or glob; a quantisation narrows to that GGUF first. No pattern: every file. */
export function selectFiles<F extends { path: string }>(files: F[], patterns: string[] = [], quant?: string): F[] {
  const base = quant ? selectQuant(files, quant) : files;
  if (quant && base.length === 0) throw new Error(`no GGUF file with quantisation ${quant}`);
  if (patterns.length === 0) return base;
  const res = patterns.map(globToRegExp);
  const out = base.filter((f) => res.some((r) => r.test(f.path)));
  for (const [i, p] of patterns.entries()) {
    if (!base.some((f) => res[i]?.test(f.path))) throw new Error(`no file matches ${p}`);
  }
  return out;
}

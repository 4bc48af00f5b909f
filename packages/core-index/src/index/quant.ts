/**
 * GGUF quantisation names as they appear in file names (`…-Q4_K_M.gguf`, `….IQ2_XXS.gguf`, `…-f16.gguf`).
 * Matching is case-insensitive; the canonical spelling is upper case.
 */
const QUANT = /(?:^|[-_.])((?:UD-)?(?:I?Q[1-8](?:_[0-9A-Z]+)*|F16|F32|BF16|FP16|FP32|TQ[12]_0|MXFP4(?:_MOE)?))(?=[-_.])/i;

export function quantOf(path: string): string | undefined {
  const base = path.split('/').pop() ?? path;
  if (!/\.gguf$/i.test(base)) return undefined;
  const m = QUANT.exec(base.replace(/\.gguf$/i, '.'));
  if (!m?.[1]) return undefined;
  const q = m[1].toUpperCase();
  return q === 'FP16' ? 'F16' : q === 'FP32' ? 'F32' : q;
}

/** Is this GGUF a multimodal projector (mmproj)? */
export function isMmproj(path: string): boolean {
  return /mmproj/i.test(path.split('/').pop() ?? path);
}

/** A split GGUF part other than the first (`-00002-of-00003.gguf`). */
export function isLaterSplit(path: string): boolean {
  const m = /-(\d{5})-of-(\d{5})\.gguf$/i.exec(path);
  return !!m && m[1] !== '00001';
}

/** The default tag's preference when no `Q4_K_M` exists (design section 5). */
export const QUANT_PREFERENCE = [
  'Q4_K_M',
  'Q4_K_S',
  'Q4_0',
  'Q5_K_M',
  'Q5_K_S',
  'Q5_0',
  'Q6_K',
  'Q8_0',
  'Q3_K_M',
  'Q3_K_L',
  'Q3_K_S',
  'IQ4_XS',
  'IQ4_NL',
  'Q2_K',
  'BF16',
  'F16',
  'F32',
];

/** GGUF files a quantisation can be chosen from: not a projector, not a later split part. */
function choosable(path: string): boolean {
  return /\.gguf$/i.test(path) && !isMmproj(path) && !isLaterSplit(path) && quantOf(path) !== undefined;
}

/**
 * The default quantisation of a model's files, the one rule for `ollama pull …:latest`, the site's model page, MCP
 * `get_download`, `hub get owner/name` and the section examples (issue 13): the first of {@link QUANT_PREFERENCE}
 * present, else the alphabetically first quantisation present, else undefined (no quantised GGUF).
 */
export function defaultQuant(paths: Iterable<string>): string | undefined {
  const present = new Set<string>();
  for (const p of paths) if (choosable(p)) present.add(quantOf(p) as string);
  return QUANT_PREFERENCE.find((q) => present.has(q)) ?? [...present].sort()[0];
}

/**
 * The default GGUF file: the first file in path order with the {@link defaultQuant}, else the first GGUF (not a
 * projector, not a later split part) in path order.
 */
export function defaultGgufFile<T extends { path: string }>(files: readonly T[]): T | undefined {
  const ggufs = files
    .filter((f) => /\.gguf$/i.test(f.path) && !isMmproj(f.path) && !isLaterSplit(f.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const q = defaultQuant(ggufs.map((f) => f.path));
  return (q ? ggufs.find((f) => quantOf(f.path) === q) : undefined) ?? ggufs[0];
}

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

import { quantOf } from './quant.js';
import type { GgufFacts } from './schemas.js';

/** What a GGUF reader (`@huggingface/gguf`'s `gguf()`) gives back for one file: its metadata and parameter count. */
export interface ParsedGguf {
  metadata: Record<string, unknown>;
  parameterCount?: number;
}

/** A metadata value that is a whole number (the reader gives `number` or `bigint` depending on the GGUF type). */
function count(v: unknown): number | undefined {
  if (typeof v === 'bigint') return Number(v);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * A GGUF file's facts from its parsed header: architecture, name, quantisation (from the file name), file type,
 * context length, parameters and chat template. The one rule both index builders use (the from-dir build reads the
 * header locally, the upstream run by range requests); pure, so it is the same on every host.
 */
export function ggufFactsOf(path: string, parsed: ParsedGguf): GgufFacts {
  const md = parsed.metadata;
  const arch = typeof md['general.architecture'] === 'string' ? md['general.architecture'] : undefined;
  const facts: GgufFacts = { path };
  if (arch) facts.architecture = arch;
  if (typeof md['general.name'] === 'string') facts.name = md['general.name'];
  const q = quantOf(path);
  if (q) facts.quantization = q;
  const fileType = count(md['general.file_type']);
  if (fileType !== undefined) facts.file_type = fileType;
  const context = arch ? count(md[`${arch}.context_length`]) : undefined;
  if (context !== undefined) facts.context_length = context;
  const parameters = count(parsed.parameterCount);
  if (parameters !== undefined) facts.parameters = parameters;
  if (typeof md['tokenizer.chat_template'] === 'string') facts.chat_template = md['tokenizer.chat_template'];
  return facts;
}

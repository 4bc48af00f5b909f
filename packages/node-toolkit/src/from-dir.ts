import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type BuildModelInput,
  type BuildResult,
  buildIndex,
  type GgufFacts,
  isMmproj,
  type Logger,
  type ObjectStore,
  quantOf,
} from '@hub/core-index';
import { sha256File } from './hash-file.js';

/** Models hashed at once by {@link buildFromDir}. */
const HASH_CONCURRENCY = 16;

export interface FromDirSource {
  name: string;
  url?: string;
}

export interface FromDirOptions {
  dir: string;
  sources: FromDirSource[];
  date?: string;
  display?: (name: string) => string;
  log?: Logger;
  /** progress callback: files hashed so far, of total */
  progress?: (done: number, total: number, file: string) => void;
}

async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (e.name.startsWith('.') && e.name !== '.gitattributes') continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(path.join(dir, e.name), rel)));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** GGUF header facts by local read (architecture, context, parameters, quantisation, chat template). */
export async function ggufFacts(file: string, relPath: string): Promise<GgufFacts | undefined> {
  try {
    const { gguf } = await import('@huggingface/gguf');
    const parsed = (await gguf(file, { allowLocalFile: true, computeParametersCount: true })) as unknown as {
      metadata: Record<string, unknown>;
      parameterCount?: number;
    };
    const md = parsed.metadata;
    const arch = typeof md['general.architecture'] === 'string' ? (md['general.architecture'] as string) : undefined;
    const ctx = arch ? md[`${arch}.context_length`] : undefined;
    const facts: GgufFacts = { path: relPath };
    if (arch) facts.architecture = arch;
    if (typeof md['general.name'] === 'string') facts.name = md['general.name'] as string;
    const q = quantOf(relPath);
    if (q) facts.quantization = q;
    if (typeof md['general.file_type'] === 'number') facts.file_type = md['general.file_type'] as number;
    if (typeof ctx === 'number' || typeof ctx === 'bigint') facts.context_length = Number(ctx);
    if (typeof parsed.parameterCount === 'number') facts.parameters = parsed.parameterCount;
    if (typeof md['tokenizer.chat_template'] === 'string') facts.chat_template = md['tokenizer.chat_template'] as string;
    return facts;
  } catch {
    return undefined;
  }
}

interface FactsFile {
  license?: string;
  pipeline_tag?: string;
  library_name?: string;
  tags?: string[];
}

/**
 * Optional `.hub-facts.json` in a model folder (not indexed as a file): license, pipeline_tag,
 * library_name and tags, which a bare tree cannot tell.
 */
async function readFactsFile(dir: string): Promise<FactsFile> {
  try {
    const raw = JSON.parse(await readFile(path.join(dir, '.hub-facts.json'), 'utf8')) as FactsFile;
    const out: FactsFile = {};
    if (typeof raw.license === 'string') out.license = raw.license;
    if (typeof raw.pipeline_tag === 'string') out.pipeline_tag = raw.pipeline_tag;
    if (typeof raw.library_name === 'string') out.library_name = raw.library_name;
    if (Array.isArray(raw.tags)) out.tags = raw.tags.filter((t): t is string => typeof t === 'string');
    return out;
  } catch {
    return {};
  }
}

/**
 * Index a local tree laid out as `{owner}/{name}/…`: every model folder becomes a model, every file
 * is hashed with SHA-256 (streamed), the revision is derived from the listing, and each `--source`
 * is recorded as holding every file. The descriptor switches to the new catalog atomically.
 */
export async function buildFromDir(objects: ObjectStore, options: FromDirOptions): Promise<BuildResult> {
  const models: BuildModelInput[] = [];
  const owners = (await readdir(options.dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
  const todo: Array<{ id: string; dir: string; files: string[] }> = [];
  for (const owner of owners.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const names = (await readdir(path.join(options.dir, owner.name), { withFileTypes: true })).filter((e) => e.isDirectory());
    for (const name of names.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const dir = path.join(options.dir, owner.name, name.name);
      todo.push({ id: `${owner.name}/${name.name}`, dir, files: await walk(dir) });
    }
  }
  const total = todo.reduce((n, t) => n + t.files.length, 0);
  let done = 0;
  const indexOne = async (t: (typeof todo)[number]): Promise<BuildModelInput> => {
    const files = [];
    const gguf: GgufFacts[] = [];
    for (const rel of t.files) {
      const full = path.join(t.dir, rel);
      const { sha256, size } = await sha256File(full);
      files.push({ path: rel, size, sha256 });
      if (/\.gguf$/i.test(rel) && !isMmproj(rel)) {
        const facts = await ggufFacts(full, rel);
        if (facts) gguf.push(facts);
      }
      done++;
      options.progress?.(done, total, `${t.id}/${rel}`);
    }
    const first = gguf[0];
    const extra = await readFactsFile(t.dir);
    options.log?.info({ model: t.id, files: files.length }, 'indexed model');
    return {
      id: t.id,
      files,
      license: extra.license ?? null,
      facts: {
        ...(extra.pipeline_tag ? { pipeline_tag: extra.pipeline_tag } : {}),
        ...(extra.library_name ? { library_name: extra.library_name } : {}),
        ...(extra.tags ? { tags: extra.tags } : {}),
        ...(gguf.length ? { gguf, tags: extra.tags ?? ['gguf'] } : {}),
        ...(first?.parameters !== undefined ? { parameters: first.parameters } : {}),
        ...(first?.context_length !== undefined ? { context: first.context_length } : {}),
        ...(gguf.length && !extra.pipeline_tag ? { pipeline_tag: 'text-generation' } : {}),
      },
      sources: options.sources.map((s) => ({ source: s.name, type: 'http' as const, ...(s.url ? { url: s.url } : {}) })),
    };
  };
  // A few models at once: their file reads, hashes (node:crypto streams hash on the libuv pool) and GGUF header
  // reads overlap instead of waiting on one file at a time. Models keep the tree's order.
  for (let i = 0; i < todo.length; i += HASH_CONCURRENCY) {
    models.push(...(await Promise.all(todo.slice(i, i + HASH_CONCURRENCY).map(indexOne))));
  }
  return buildIndex(objects, {
    date: options.date ?? new Date().toISOString().slice(0, 10),
    models,
    ...(options.display ? { display: options.display } : {}),
  });
}

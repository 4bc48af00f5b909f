import { type FileRecord, type GgufFacts, type IndexedModel, type IndexStore, ollamaTemplateFor, sha256Hex, utf8 } from '@hub/core-index';
import { goTemplateProblem } from './go-template.js';
import {
  DOCKER_AI_CONFIG,
  DOCKER_AI_GGUF,
  DOCKER_AI_LICENSE,
  DOCKER_AI_MMPROJ,
  DOCKER_AI_TEMPLATE,
  DOCKER_CONFIG,
  DOCKER_MANIFEST,
  FILE_LAYER,
  FILEPATH,
  MODELPACK_ARTIFACT,
  MODELPACK_CODE,
  MODELPACK_CONFIG,
  MODELPACK_DOC,
  MODELPACK_WEIGHT,
  MODELPACK_WEIGHT_CONFIG,
  OCI_CONFIG,
  OCI_MANIFEST,
  OLLAMA_LICENSE,
  OLLAMA_MODEL,
  OLLAMA_PARAMS,
  OLLAMA_PROJECTOR,
  OLLAMA_TEMPLATE,
  TITLE,
} from './media-types.js';
import { type RepoTags, repoTags, type Target } from './tags.js';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** Bytes made once per index and served as they are: a manifest or a hub-made blob. */
export interface Prepared {
  bytes: Uint8Array;
  /** `sha256:<64 hex>` of exactly these bytes */
  digest: string;
  mediaType: string;
}

/**
 * The manifest shapes of one tag: `docker` (Docker v2 + Ollama layers), `oci` (OCI image manifest),
 * `modelpack` (CNCF ModelPack, raw layers) and `dockerai` (Docker Model Runner v0.2, GGUF tags only).
 */
export type Shape = 'docker' | 'oci' | 'modelpack' | 'dockerai';

/** One repository of the registry, prepared once per index. */
export interface Repository {
  model: IndexedModel;
  tags: RepoTags;
  /** the two shapes of each target's manifest */
  manifests: Map<Target, ShapeSet>;
  /** every manifest of this repository by digest */
  manifestsByDigest: Map<string, Prepared>;
  /** hub-made blobs (configs, templates, params, licences) by digest */
  hubBlobs: Map<string, Prepared>;
  /** the model's files by digest (`sha256:<hex>`) */
  files: Map<string, FileRecord>;
}

/** The shapes of one tag; `dockerai` only where Docker Model Runner can load the model (GGUF). */
export type ShapeSet = Record<Exclude<Shape, 'dockerai'>, Prepared> & { dockerai?: Prepared };

/** ModelPack layer type of a file, by name: weights, weight configs (tokenizer, config.json…), docs, code. */
export function modelpackLayerType(path: string): string {
  const base = (path.split('/').pop() ?? path).toLowerCase();
  if (/\.(gguf|safetensors|bin|pt|pth|ckpt|onnx|onnx_data|h5|msgpack|tflite|mlmodel|pb|npz|dduf)$/.test(base)) return MODELPACK_WEIGHT;
  if (/\.(md|txt|rst|pdf|png|jpe?g|gif|svg|webp)$/.test(base) || /^(license|licence|notice|copying|readme)/.test(base))
    return MODELPACK_DOC;
  if (/\.(py|sh|ipynb|js|ts)$/.test(base)) return MODELPACK_CODE;
  return MODELPACK_WEIGHT_CONFIG;
}

/** ModelPack `config.format` of a set of files: the weights' format, when they share one. */
function weightFormat(files: FileRecord[]): string | undefined {
  const formats = new Set<string>();
  for (const f of files) {
    const m = /\.(gguf|safetensors|onnx|bin|pt|pth)$/i.exec(f.path);
    if (m?.[1]) formats.add(m[1].toLowerCase() === 'bin' || m[1].toLowerCase() === 'pth' ? 'pytorch' : m[1].toLowerCase());
  }
  if (formats.size === 1) return [...formats][0];
  if (formats.has('safetensors')) return 'safetensors';
  return undefined;
}

const digestOf = (bytes: Uint8Array) => `sha256:${sha256Hex(bytes)}`;

function prepared(bytes: Uint8Array, mediaType: string): Prepared {
  return { bytes, digest: digestOf(bytes), mediaType };
}

/**
 * GGUF `general.file_type` (llama.cpp's `llama_ftype`) by number, for a file whose name carries no
 * quantisation. Numbers llama.cpp has retired are absent.
 */
const FILE_TYPES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
  36: 'TQ1_0',
  37: 'TQ2_0',
  38: 'MXFP4_MOE',
};

/** Ollama-style parameter size: `8.0B`, `360M`, `1.50M`, `12K`. */
export function parameterSize(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return Number.isInteger(n / 1e6) ? `${n / 1e6}M` : `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}K`;
  return String(n);
}

/** The repository of a model in this index: built on first use, then kept until the next index. */
export function repository(index: IndexStore, model: IndexedModel): Promise<Repository> {
  return index.memo(`oci:repository:${model.id}`, () => buildRepository(model));
}

/** The GGUF facts that describe one target: its own file's, else any of the model's (same architecture). */
function factsFor(model: IndexedModel, file: FileRecord): { own?: GgufFacts; any: GgufFacts[] } {
  const all = model.object.facts.gguf ?? [];
  return { own: all.find((g) => g.path === file.path), any: all };
}

export async function buildRepository(model: IndexedModel): Promise<Repository> {
  const tags = repoTags(model);
  const hubBlobs = new Map<string, Prepared>();
  const manifests = new Map<Target, ShapeSet>();
  const manifestsByDigest = new Map<string, Prepared>();
  const files = new Map<string, FileRecord>();
  for (const f of model.files) if (!files.has(`sha256:${f.sha256}`)) files.set(`sha256:${f.sha256}`, f);

  const hubBlob = (bytes: Uint8Array, mediaType: string): Descriptor => {
    const p = prepared(bytes, mediaType);
    if (!hubBlobs.has(p.digest)) hubBlobs.set(p.digest, p);
    return { mediaType, digest: p.digest, size: bytes.byteLength };
  };
  const fileLayer = (f: FileRecord, mediaType: string): Descriptor => ({
    mediaType,
    digest: `sha256:${f.sha256}`,
    size: f.size,
    annotations: { [TITLE]: f.path },
  });
  const pathLayer = (f: FileRecord, mediaType: string): Descriptor => ({
    mediaType,
    digest: `sha256:${f.sha256}`,
    size: f.size,
    annotations: { [FILEPATH]: f.path, [TITLE]: f.path },
  });

  // The licence blob is the same for every tag.
  const license = model.object.license ? utf8(model.object.license) : undefined;
  // Template mappings by chat template, so each distinct template is mapped once.
  const templates = new Map<string, Awaited<ReturnType<typeof ollamaTemplateFor>>>();

  for (const target of tags.targets) {
    let layers: Descriptor[];
    let dockerConfig: Record<string, unknown>;
    const labels: Record<string, string> = {
      [TITLE]: model.id,
      'org.opencontainers.image.revision': model.revision,
      ...(model.object.license ? { 'org.opencontainers.image.licenses': model.object.license } : {}),
    };
    let extra: Record<string, unknown> = {};
    /** facts for the ModelPack and Docker AI configs */
    const facts: { format?: string; family?: string; parameters?: number; quant?: string; context?: number } = {};
    let modelpackFiles: FileRecord[];
    let dockerai: Prepared | undefined;

    if (target.kind === 'gguf') {
      const { own, any } = factsFor(model, target.file);
      const family = own?.architecture ?? any.find((g) => g.architecture)?.architecture;
      const parameters = own?.parameters ?? any.find((g) => g.parameters)?.parameters ?? model.object.facts.parameters;
      const context = own?.context_length ?? any.find((g) => g.context_length)?.context_length ?? model.object.facts.context;
      const fileType = target.quant ?? own?.quantization ?? (own?.file_type !== undefined ? FILE_TYPES[own.file_type] : undefined);
      const chatTemplate = own?.chat_template ?? any.find((g) => g.chat_template)?.chat_template;

      Object.assign(facts, { format: 'gguf', family, parameters, quant: fileType, context });
      modelpackFiles = [...target.parts, ...(target.mmproj ? [target.mmproj] : [])];

      // Docker Model Runner v0.2: one layer per file, each with its filepath.
      const aiLayers = target.parts.map((p) => pathLayer(p, DOCKER_AI_GGUF));
      if (target.mmproj) aiLayers.push(pathLayer(target.mmproj, DOCKER_AI_MMPROJ));
      if (chatTemplate) {
        const d = hubBlob(utf8(chatTemplate), DOCKER_AI_TEMPLATE);
        aiLayers.push({ ...d, annotations: { [FILEPATH]: 'template.jinja' } });
      }
      if (license) aiLayers.push({ ...hubBlob(license, DOCKER_AI_LICENSE), annotations: { [FILEPATH]: 'LICENSE' } });
      const aiConfig = {
        config: {
          format: 'gguf',
          ...(fileType ? { quantization: fileType } : {}),
          ...(parameters ? { parameters: parameterSize(parameters) } : {}),
          ...(family ? { architecture: family } : {}),
          size: String(target.parts.reduce((n, p) => n + p.size, 0) + (target.mmproj?.size ?? 0)),
          ...(context ? { context_size: context } : {}),
        },
        descriptor: {},
        rootfs: { type: 'rootfs', diff_ids: aiLayers.map((l) => l.digest) },
      };
      const aiConfigDesc = hubBlob(utf8(JSON.stringify(aiConfig)), DOCKER_AI_CONFIG);
      dockerai = prepared(
        utf8(JSON.stringify({ schemaVersion: 2, mediaType: OCI_MANIFEST, config: aiConfigDesc, layers: aiLayers })),
        OCI_MANIFEST,
      );

      layers = target.parts.map((p) => fileLayer(p, OLLAMA_MODEL));
      if (target.mmproj) layers.push(fileLayer(target.mmproj, OLLAMA_PROJECTOR));
      if (chatTemplate) {
        if (!templates.has(chatTemplate)) {
          const mapped = await ollamaTemplateFor(chatTemplate);
          // A template Go cannot parse would fail Ollama's load: leave it out (Ollama then uses its default).
          templates.set(chatTemplate, mapped && !goTemplateProblem(mapped.template) ? mapped : undefined);
        }
        const mapped = templates.get(chatTemplate);
        if (mapped) {
          layers.push(hubBlob(utf8(mapped.template), OLLAMA_TEMPLATE));
          if (mapped.params) layers.push(hubBlob(utf8(JSON.stringify(mapped.params)), OLLAMA_PARAMS));
        }
      }
      if (license) layers.push(hubBlob(license, OLLAMA_LICENSE));

      // The fields Ollama's ConfigV2 reads (protocols.md 4.3); never remote_host/remote_model.
      dockerConfig = {
        model_format: 'gguf',
        ...(family ? { model_family: family, model_families: target.mmproj ? [family, 'clip'] : [family] } : {}),
        ...(parameters ? { model_type: parameterSize(parameters) } : {}),
        ...(fileType ? { file_type: fileType } : {}),
        ...(context ? { context_length: context } : {}),
      };
      labels['org.opencontainers.image.ref.name'] = target.file.path;
      labels.model_format = 'gguf';
      if (family) labels.model_family = family;
      if (parameters) labels.model_type = parameterSize(parameters);
      if (fileType) labels.file_type = fileType;
      if (context) labels.context_length = String(context);

      // For llama.cpp's older `-hf` flow (protocols.md 3.1): the file to fetch through /resolve/main/.
      extra = {
        ggufFile: { rfilename: target.file.path, blobId: `sha256:${target.file.sha256}`, size: target.file.size },
        ...(target.mmproj
          ? { mmprojFile: { rfilename: target.mmproj.path, blobId: `sha256:${target.mmproj.sha256}`, size: target.mmproj.size } }
          : {}),
      };
    } else {
      layers = target.files.map((f) => fileLayer(f, FILE_LAYER));
      dockerConfig = {};
      modelpackFiles = target.files;
      Object.assign(facts, { format: weightFormat(target.files), parameters: model.object.facts.parameters });
    }

    const rootfs = { type: 'layers', diff_ids: layers.map((l) => l.digest) };
    const dockerConfigDesc = hubBlob(utf8(JSON.stringify({ ...dockerConfig, architecture: 'amd64', os: 'linux', rootfs })), DOCKER_CONFIG);
    // A valid OCI image config (image-spec config.md): architecture, os, rootfs; the facts as labels.
    const ociConfigDesc = hubBlob(
      utf8(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: labels }, rootfs })),
      OCI_CONFIG,
    );

    const docker = prepared(
      utf8(JSON.stringify({ schemaVersion: 2, mediaType: DOCKER_MANIFEST, config: dockerConfigDesc, layers, ...extra })),
      DOCKER_MANIFEST,
    );
    const oci = prepared(
      utf8(JSON.stringify({ schemaVersion: 2, mediaType: OCI_MANIFEST, config: ociConfigDesc, layers, ...extra })),
      OCI_MANIFEST,
    );

    // CNCF ModelPack: raw layers named by filepath, a model config whose diffIds are the layer digests.
    const mpLayers = modelpackFiles.map((f) => pathLayer(f, modelpackLayerType(f.path)));
    const mpConfig = {
      descriptor: {
        name: model.id,
        revision: model.revision,
        ...(model.object.license ? { licenses: [model.object.license] } : {}),
        ...(facts.family ? { family: facts.family } : {}),
      },
      config: {
        ...(facts.format ? { format: facts.format } : {}),
        ...(facts.parameters ? { paramSize: parameterSize(facts.parameters) } : {}),
        ...(facts.quant ? { quantization: facts.quant } : {}),
      },
      modelfs: { type: 'layers', diffIds: mpLayers.map((l) => l.digest) },
    };
    const mpConfigDesc = hubBlob(utf8(JSON.stringify(mpConfig)), MODELPACK_CONFIG);
    const modelpack = prepared(
      utf8(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: OCI_MANIFEST,
          artifactType: MODELPACK_ARTIFACT,
          config: mpConfigDesc,
          layers: mpLayers,
          annotations: { 'org.opencontainers.image.ref.name': target.kind === 'gguf' ? target.file.path : model.id },
        }),
      ),
      OCI_MANIFEST,
    );

    const set: ShapeSet = { docker, oci, modelpack, ...(dockerai ? { dockerai } : {}) };
    manifests.set(target, set);
    for (const m of [docker, oci, modelpack, dockerai]) if (m) manifestsByDigest.set(m.digest, m);
  }
  return { model, tags, manifests, manifestsByDigest, hubBlobs, files };
}

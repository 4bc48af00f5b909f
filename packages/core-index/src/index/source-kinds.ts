import { encodePath } from './encode-path.js';

/**
 * The kinds of byte source, as one table: what a kind's `url` means, how a file's URL is built at it, and what its
 * probe path is resolved against. Config (`SourceConfig.kind`, checked by {@link sourceKindProblem}), the index's
 * schema (`SourceObject.type`), URL building ({@link fileUrlAt}) and probing ({@link probeBase}) all read it. Adding a
 * kind to {@link SOURCE_KINDS} fails the type check until {@link SOURCE_KIND_INFO} has its row and every `switch`
 * below handles it (each ends in {@link unknownKind}, which takes `never`).
 */
export const SOURCE_KINDS = ['http', 'ipfs', 'mirror'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The public IPFS gateway a hub uses when the operator configures none (the `ipfs` source, pins, the archive). */
export const DEFAULT_IPFS_GATEWAY = 'https://ipfs.io';

interface SourceKindInfo {
  /** What the source's `url` is, in the words of an error message. */
  url: string;
  /** The `url` used when a source of this kind sets none. */
  defaultUrl?: string;
}

export const SOURCE_KIND_INFO: Record<SourceKind, SourceKindInfo> = {
  http: { url: 'a URL template with {id}, {owner}, {name}, {revision}, {path} and {sha256}' },
  ipfs: { url: 'an IPFS gateway base URL', defaultUrl: DEFAULT_IPFS_GATEWAY },
  mirror: { url: "a local mirror folder's base URL (files at sha256/<hex>, manifest.json), or a template with {sha256}" },
};

/** A kind that no case handled: a type error where it is called (the argument is not `never`), a clear error at run time. */
function unknownKind(kind: never): never {
  throw new Error(`unknown source kind ${JSON.stringify(kind)}`);
}

export function isSourceKind(v: unknown): v is SourceKind {
  return typeof v === 'string' && (SOURCE_KINDS as readonly string[]).includes(v);
}

/** A problem with a source's kind (unknown), or undefined. */
export function sourceKindProblem(source: { name: string; kind?: unknown }): string | undefined {
  if (isSourceKind(source.kind)) return undefined;
  return `source ${source.name}: kind ${JSON.stringify(source.kind)} is not one of ${SOURCE_KINDS.join(', ')}`;
}

/** One file as a source holds it: the id and revision at that source, the path, and the kind's own address. */
export interface FileAt {
  id: string;
  revision: string;
  path: string;
  /** `ipfs`: the root CID of the model directory */
  root?: string;
  /** the file's SHA-256 (`{sha256}` in a template; what a mirror holds files by) */
  sha256?: string;
}

/** The path of a held file inside a mirror folder (and below the mirror's base URL). */
export const mirrorFilePath = (sha256: string) => `sha256/${sha256}`;

/** A mirror's file URL template: its `url` when that is a template, else `<url>/sha256/{sha256}` (design 10.3). */
export function mirrorFileTemplate(url: string): string {
  return url.includes('{') ? url : `${url.replace(/\/+$/, '')}/${mirrorFilePath('{sha256}')}`;
}

/** The URL of one file at a source of this kind, from the source's `url` (template or gateway); undefined when it has none. */
export function fileUrlAt(kind: SourceKind, url: string | undefined, file: FileAt): string | undefined {
  switch (kind) {
    case 'http':
      return url ? expandTemplate(url, file) : undefined;
    case 'ipfs': {
      const gateway = (url ?? DEFAULT_IPFS_GATEWAY).replace(/\/+$/, '');
      return file.root ? `${gateway}/ipfs/${file.root}/${encodePath(file.path)}` : undefined;
    }
    case 'mirror':
      return url && file.sha256 ? expandTemplate(mirrorFileTemplate(url), file) : undefined;
    default:
      return unknownKind(kind);
  }
}

/**
 * The base a relative probe path is resolved against: a template is cut at its first `{`; a gateway (and a URL without
 * placeholders) is a folder, so it ends in `/`.
 */
export function probeBase(kind: SourceKind, url: string): string {
  const brace = url.indexOf('{');
  const folder = (u: string) => (u.endsWith('/') ? u : `${u}/`);
  switch (kind) {
    case 'http':
      return brace === -1 ? folder(url) : url.slice(0, brace);
    case 'ipfs':
    case 'mirror':
      return folder(brace === -1 ? url : url.slice(0, brace));
    default:
      return unknownKind(kind);
  }
}

/** One place bytes can be fetched from (design section 4; config `sources`). */
export interface SourceConfig {
  /** Health key and `X-Hub-Source` value, e.g. `huggingface.co`, `ipfs`, or a mirror's name. */
  name: string;
  /** Display spelling for `svc.sources`, e.g. `Hugging Face`. */
  display: string;
  /** The `/via/{token}/` spelling. */
  token: string;
  /**
   * How the source is addressed: one of {@link SOURCE_KINDS} (`http`: a URL template; `ipfs`: a gateway; `mirror`: a
   * local mirror, chosen for exactly the SHA-256s its manifest lists, re-read on each probe round; design 10.3).
   */
  kind: SourceKind;
  /**
   * `http`: URL template (`{id}`, `{owner}`, `{name}`, `{revision}`, `{path}`, `{sha256}`); `ipfs`: gateway base URL;
   * `mirror`: the mirror folder's base URL, or a template with `{sha256}` (then `manifest` names the manifest's URL).
   */
  url?: string;
  /** `mirror`: the manifest's URL, when `url` is a template. */
  manifest?: string;
  /** A file to fetch and hash on each probe. Without one the source is offered with `checked: null`. */
  probe?: { path: string; sha256: string; size?: number };
  /** Never redirected to (P2P). */
  redirect?: boolean;
  /**
   * The template names a server on the hub's own machine (the demo mirror): a redirect to it names the host the
   * client reached the hub by (`baseUrl`'s, or the validated `Host`), keeping the template's scheme, port and path.
   */
  onHubHost?: boolean;
}

/** ModelScope's origin: the default of its source's URL template and of the build's look-ups by SHA-256 (written once). */
export const MODELSCOPE_URL = 'https://modelscope.cn';

export const DEFAULT_SOURCES: SourceConfig[] = [
  {
    name: 'huggingface.co',
    display: 'Hugging Face',
    token: 'hf',
    kind: 'http',
    url: 'https://huggingface.co/{id}/resolve/{revision}/{path}',
  },
  {
    name: 'modelscope.cn',
    display: 'ModelScope',
    token: 'modelscope',
    kind: 'http',
    url: `${MODELSCOPE_URL}/models/{id}/resolve/{revision}/{path}`,
  },
  { name: 'ipfs', display: 'IPFS', token: 'ipfs', kind: 'ipfs', url: DEFAULT_IPFS_GATEWAY },
];

type TemplatePart = string | 'id' | 'owner' | 'name' | 'revision' | 'path' | 'sha256';
const compiled = new Map<string, { parts: TemplatePart[]; vars: boolean[] }>();

function compile(template: string) {
  let c = compiled.get(template);
  if (!c) {
    const parts: TemplatePart[] = [];
    const vars: boolean[] = [];
    let last = 0;
    for (const m of template.matchAll(/\{(id|owner|name|revision|path|sha256)\}/g)) {
      parts.push(template.slice(last, m.index));
      vars.push(false);
      parts.push(m[1] as TemplatePart);
      vars.push(true);
      last = (m.index ?? 0) + m[0].length;
    }
    parts.push(template.slice(last));
    vars.push(false);
    c = { parts, vars };
    if (compiled.size < 1000) compiled.set(template, c);
  }
  return c;
}

/** Expand a source URL template for one file. Path segments are percent-encoded, `/` kept. */
export function expandTemplate(template: string, v: { id: string; revision: string; path: string; sha256?: string }): string {
  const { parts, vars } = compile(template);
  const slash = v.id.indexOf('/');
  const owner = slash === -1 ? v.id : v.id.slice(0, slash);
  const name = slash === -1 ? '' : v.id.slice(slash + 1);
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (!vars[i]) {
      out += part;
      continue;
    }
    switch (part) {
      case 'id':
        out += `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
        break;
      case 'owner':
        out += encodeURIComponent(owner);
        break;
      case 'name':
        out += encodeURIComponent(name);
        break;
      case 'revision':
        out += encodeURIComponent(v.revision);
        break;
      case 'sha256':
        out += encodeURIComponent(v.sha256 ?? '');
        break;
      default:
        out += encodePath(v.path);
    }
  }
  return out;
}

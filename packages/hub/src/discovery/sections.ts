import { encodePath, type IndexedModel, type IndexStore, isMmproj, type RequestObject, type SectionDescriptor } from '@hub/core-index';
import type { RegistryRepositories } from '@hub/dialect-oci';
import { DOC_PAGES } from '../site/docs-content.js';

export const SECTIONS = ['models', 'registry', 'spaces', 'buckets', 'docs'] as const;
export type SectionName = (typeof SECTIONS)[number];

export const SECTION_TITLES: Record<SectionName, string> = {
  models: 'Models',
  registry: 'Registry',
  spaces: 'Spaces',
  buckets: 'Buckets',
  docs: 'Docs',
};

/** The docs pages a person or agent can read, each with its Markdown twin (the docs descriptor's `pages`). */
export function docPages(): { title: string; html: string; markdown: string }[] {
  return [
    { title: 'Machine description (every route)', html: '/docs', markdown: '/docs/api.md' },
    ...DOC_PAGES.map((p) => ({ title: p.title, html: `/docs/${p.slug}`, markdown: `/docs/${p.slug}.md` })),
    { title: 'Agent brief', html: '/', markdown: '/agent.md' },
  ];
}

/** Real example ids from today's index, so every Request in a descriptor is runnable as written. */
export interface Examples {
  model?: IndexedModel;
  /** a small file of `model`, for the fetch example */
  file?: string;
  /** a model with a GGUF file, else `model` (the registry's example) */
  ociModel?: IndexedModel;
  ociFile?: { path: string; sha256: string };
}

export function examples(index: IndexStore): Examples {
  return index.memo('discovery:examples', () => {
    const models = index.head();
    const usable = (m: IndexedModel) => m.files.length > 0 && m.sources.length > 0;
    const model = models.find((m) => m.row.svc.listed !== false && usable(m)) ?? models.find(usable) ?? models[0];
    const smallest = model ? [...model.files].sort((a, b) => a.size - b.size)[0] : undefined;
    const gguf = (m: IndexedModel) => m.files.find((f) => /\.gguf$/i.test(f.path) && !isMmproj(f.path));
    const ociModel = models.find((m) => usable(m) && gguf(m)) ?? model;
    const ociFile = ociModel ? (gguf(ociModel) ?? ociModel.files[0]) : undefined;
    return {
      ...(model ? { model } : {}),
      ...(smallest ? { file: smallest.path } : {}),
      ...(ociModel ? { ociModel } : {}),
      ...(ociFile ? { ociFile: { path: ociFile.path, sha256: ociFile.sha256 } } : {}),
    };
  });
}

const idPath = (id: string) => encodePath(id);

/** The registry without an archive or a bucket: one repository per model. */
function modelRepositories(index: IndexStore): RegistryRepositories {
  const models = index.totals.models;
  return { count: models, models, archive: undefined, buckets: [], key: '', page: (last, n) => index.names(last, n) };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The registry's inventory counts what `/v2/_catalog` lists (issue 27: the section said 2 while the catalog listed 4):
 * every repository is described; the archive's and the buckets' bytes are served here, a model's weight layers are not.
 */
function registryInventory(r: RegistryRepositories): SectionDescriptor['inventory'] {
  const servedHere = (r.archive ? 1 : 0) + r.buckets.length;
  const parts = [
    `${plural(r.models, 'model repository', 'model repositories')} (one per indexed model: manifests and hub-made config, template and licence blobs are answered here; weight layers redirect (307) to a live source)`,
    ...(r.archive ? [`the archive repository ${r.archive} (one tag per archived day, served here)`] : []),
    ...(r.buckets.length ? [`${plural(r.buckets.length, 'bucket')} (${r.buckets.join(', ')}, served here)`] : []),
  ];
  return {
    described: r.count,
    served_here: servedHere,
    note: `${plural(r.count, 'repository', 'repositories')} in /v2/_catalog: ${parts.join('; ')}.`,
  };
}

export function sectionCommon(section: SectionName, self: string) {
  return {
    format: 'svc.section.descriptor/v1' as const,
    section,
    title: SECTION_TITLES[section],
    self,
    brief: `/${section}?format=md`,
    page: section === 'models' ? '/models/' : `/${section}`,
    openapi: '/openapi.json',
  };
}

/**
 * The host part of an origin, as `ollama pull HOST/…` takes it (the scheme dropped), for the commands the briefs and
 * section descriptors write. One rule for both (brief.ts imports it).
 */
export function hostOf(origin: string): string {
  return origin.replace(/^https?:\/\//, '') || 'localhost:8080';
}

/**
 * One section's descriptor. `self` is the path that answered; `origin` is used only in `one_line`
 * (a shell command needs an absolute address); every Request URL is a path on this host.
 */
export function sectionDescriptor(
  section: SectionName,
  index: IndexStore,
  self: string,
  origin: string,
  registry?: RegistryRepositories,
): SectionDescriptor {
  const ex = examples(index);
  const id = ex.model?.id;
  switch (section) {
    case 'models': {
      const listed = index.totals.listed;
      const list: RequestObject[] = [
        {
          method: 'GET',
          url: '/api/v1/objects/{catalog.address}',
          returns:
            "the catalog object (model-hub.catalog): today's rows, and for each model id the address of its model object and source objects",
          dialect: 'objects',
        },
        {
          method: 'GET',
          url: '/api/models?limit=500',
          returns: 'an array of ModelRow in trending order',
          dialect: 'huggingface',
          caps_at: 500,
          note: 'further pages follow the absolute Link rel="next" header; search=, author=, filter=, pipeline_tag=, library= and sort= narrow it',
        },
        {
          method: 'GET',
          url: '/v2/_catalog',
          returns:
            'OciCatalog: every model id in lowercase as an OCI repository, beside the archive repository and the buckets (hub/buckets/{name})',
          dialect: 'oci',
        },
      ];
      return {
        ...sectionCommon('models', self),
        about: 'Open models indexed at one revision each: names, sizes and SHA-256 of every file, and the sources that hold the bytes.',
        inventory: {
          described: index.totals.models,
          served_here: 0,
          note: `${index.totals.models} models in the catalog of ${index.snapshot} (${listed} listed for browsing), ${index.totals.files} files, ${index.totals.bytes} bytes. The hub serves none of these bytes itself: every download is a redirect to a live source.`,
        },
        catalog: {
          address: index.catalogAddress,
          fetch: '/api/v1/objects/{catalog.address}',
          format: 'model-hub.catalog',
          media_type: 'application/json',
          note: 'canonical JSON; its BLAKE3 is the address. Rebuilt daily; prev names the previous day.',
        },
        list,
        item: {
          method: 'GET',
          url: id ? `/api/models/${idPath(id)}` : '/api/models?limit=1',
          returns: 'ModelInfo at the indexed revision: sha and every file name (siblings)',
          dialect: 'huggingface',
          note: 'any id from the list in place of this example; the model object itself is /api/v1/objects/{svc.manifest}',
        },
        files: {
          method: 'GET',
          url: id ? `/api/models/${idPath(id)}/tree/main?recursive=true` : '/api/models?limit=1',
          returns: 'an array of TreeEntry: path, size and oid = the SHA-256 of the file bytes',
          dialect: 'huggingface',
        },
        fetch: {
          method: 'GET',
          url: id && ex.file ? `/${idPath(id)}/resolve/main/${encodePath(ex.file)}` : '/api/models?limit=1',
          returns: '302 to a live source; X-Hub-Source names it, X-Linked-Etag carries the SHA-256 the bytes must have',
          dialect: 'huggingface',
          note: `/{owner}/{name}/resolve/main/SHA256SUMS lists every file for sha256sum -c; /via/{source}/… asks for one source (see /docs/sources.md)`,
        },
        verify: {
          algorithm: 'sha256',
          expected_from:
            "the index: TreeEntry.oid, the model object's files[].sha256, SHA256SUMS, or X-Linked-Etag on the redirect (all from the index, never from the source)",
          server_verifies_on_read: false,
        },
        one_line: id ? `HF_ENDPOINT=${origin} hf download ${id}` : `HF_ENDPOINT=${origin} hf download OWNER/NAME`,
      };
    }
    case 'registry': {
      const m = ex.ociModel;
      const repo = m ? idPath(m.id.toLowerCase()) : undefined;
      return {
        ...sectionCommon('registry', self),
        about:
          'An OCI distribution registry over the same index: one repository per model, one tag per GGUF quantisation, layers named by their SHA-256.',
        inventory: registryInventory(registry ?? modelRepositories(index)),
        catalog: null,
        catalog_note:
          'The registry has no snapshot of its own: its repositories are the models of the catalog (see /models), the archive and the buckets (see /buckets); /v2/_catalog lists them live.',
        list: [
          {
            method: 'GET',
            url: '/v2/_catalog',
            returns:
              'OciCatalog: every repository (model ids in lowercase, the archive repository, the buckets as hub/buckets/{name}); inventory.described counts them',
            dialect: 'oci',
            note: 'n= and last= page it',
          },
        ],
        item: {
          method: 'GET',
          url: repo ? `/v2/${repo}/tags/list` : '/v2/_catalog',
          returns: 'OciTagList: latest, one tag per quantisation, and GGUF file names',
          dialect: 'oci',
        },
        files: {
          method: 'GET',
          url: repo ? `/v2/${repo}/manifests/latest` : '/v2/_catalog',
          returns:
            'the manifest of a tag: one layer per file, digest = the file SHA-256 (Docker v2 shape; OCI image shape when Accept asks for it)',
          dialect: 'oci',
        },
        fetch: {
          method: 'GET',
          url: repo && ex.ociFile ? `/v2/${repo}/blobs/sha256:${ex.ociFile.sha256}` : '/v2/_catalog',
          returns: '307 to a live source for a weight layer; the client checks the digest',
          dialect: 'oci',
        },
        verify: {
          algorithm: 'sha256',
          expected_from: 'the layer digest in the manifest, which is the SHA-256 from the index',
          server_verifies_on_read: false,
        },
        one_line: m
          ? `ollama pull --insecure ${hostOf(origin)}/${m.id.toLowerCase().replace(/\.(?=[^/]*\/)/g, '-')}:latest`
          : `ollama pull --insecure ${hostOf(origin)}/OWNER/NAME:latest`,
      };
    }
    case 'spaces':
    case 'buckets': {
      const isSpaces = section === 'spaces';
      const what = isSpaces ? 'spaces' : 'buckets';
      return {
        ...sectionCommon(section, self),
        about: isSpaces
          ? 'Browser-only apps sealed under one root digest; this hub holds none yet.'
          : 'OCI index trees whose blocks are checked against their addresses; this hub holds none yet.',
        inventory: {
          described: 0,
          served_here: 0,
          note: `This hub holds no ${what} yet; the section keeps its fixed shape so clients can rely on it.`,
        },
        catalog: null,
        catalog_note: `No ${what} are published on this hub, so there is no snapshot to address.`,
        list: [],
        item: {
          method: 'GET',
          url: `/${section}?format=json`,
          returns: `this descriptor: there is no item route because no ${what} are held here (inventory.described is 0)`,
          dialect: 'http',
        },
        fetch: {
          method: 'GET',
          url: `/${section}?format=md`,
          returns: `the section brief (Markdown); no ${what} bytes exist here to fetch`,
          dialect: 'http',
        },
        verify: {
          algorithm: 'blake3',
          expected_from: isSpaces
            ? 'the root digest a space is sealed under, from the section catalog (none yet)'
            : 'the address of each block, from the section catalog (none yet)',
          server_verifies_on_read: false,
        },
      };
    }
    default: {
      const pages = docPages();
      return {
        ...sectionCommon('docs', self),
        about: 'How to use this hub: the machine description rendered for people, source failover, and how to verify a download.',
        inventory: {
          described: pages.length,
          served_here: pages.length,
          note: 'Every page is served here as HTML and as its Markdown twin.',
        },
        catalog: null,
        catalog_note: 'The docs are part of the hub code, not published as an object, so they have no content address.',
        list: [
          { method: 'GET', url: '/llms.txt', returns: 'the documentation index: every page and machine surface', dialect: 'http' },
          {
            method: 'GET',
            url: '/docs?format=json',
            returns: 'this descriptor, whose pages lists every page and its Markdown twin',
            dialect: 'http',
          },
        ],
        item: { method: 'GET', url: '/docs/sources.md', returns: 'one page as Markdown (its HTML twin drops the .md)', dialect: 'http' },
        fetch: { method: 'GET', url: '/docs/verification.md', returns: 'a page as Markdown: how to verify a download', dialect: 'http' },
        verify: { algorithm: 'none', expected_from: 'nothing: the docs are not content-addressed', server_verifies_on_read: false },
        pages,
      };
    }
  }
}

/** The Markdown section brief: the descriptor in words, with absolute commands. */
export function sectionBrief(d: SectionDescriptor, origin: string): string {
  const req = (r: RequestObject) =>
    `- \`GET ${origin}${r.url}\` → ${r.returns}${r.caps_at ? ` (at most ${r.caps_at} per call)` : ''}${r.note ? `. ${r.note}` : ''}`;
  const lines = [`# ${d.title ?? d.section}`, '', d.about, ''];
  lines.push(
    `Inventory: ${d.inventory.described ?? 'unknown'} described, ${d.inventory.served_here ?? 'unknown'} served here. ${d.inventory.note}`,
    '',
  );
  if (d.catalog) {
    lines.push(
      `Catalog: \`${d.catalog.address}\` (${d.catalog.format}); fetch \`${origin}${d.catalog.fetch}\`. ${d.catalog.note ?? ''}`.trim(),
      '',
    );
    lines.push('`{catalog.address}` below means that address.', '');
  } else if (d.catalog_note) lines.push(`Catalog: none. ${d.catalog_note}`, '');
  lines.push('## List');
  if (d.list.length === 0) lines.push('- Nothing to list here yet.');
  for (const r of d.list) lines.push(req(r));
  lines.push('', '## One item', req(d.item));
  if (d.files) lines.push('', '## Its files', req(d.files));
  lines.push('', '## Fetch', req(d.fetch));
  lines.push(
    '',
    '## Verify',
    `- Algorithm: ${d.verify.algorithm}. Expected value from ${d.verify.expected_from}. The server never verifies on read.`,
  );
  if (d.one_line) lines.push('', '## One line', '```sh', d.one_line, '```');
  if (d.pages) {
    lines.push('', '## Pages');
    for (const p of d.pages) lines.push(`- ${p.title}: ${origin}${p.html} (Markdown: ${origin}${p.markdown})`);
  }
  lines.push(
    '',
    `Descriptor: \`GET ${origin}/${d.section}\` with \`Accept: application/json\` (or \`?format=json\`). Page: ${origin}${d.page}. Machine description: ${origin}${d.openapi}.`,
    '',
  );
  return lines.join('\n');
}

/**
 * A section whose content is not part of the index (spaces) is described live: its state is loaded
 * before answering, `key` (its catalog address) keeps memoised answers apart, and `describe` builds
 * its descriptor when it holds anything.
 */
export interface LiveSection {
  key: string;
  describe?: (self: string, origin: string) => SectionDescriptor;
  html?: string;
}

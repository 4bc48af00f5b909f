import {
  type Address,
  type ObjectStore,
  type RequestObject,
  readSpace,
  readSpaces,
  type SectionDescriptor,
  type SpaceObject,
  type SpacesCatalog,
} from '@hub/core-index';
import { escapeHtml, formatBytes, page } from '../site/html.js';

export interface SpaceEntry {
  name: string;
  root: Address;
  space: SpaceObject;
}

/** The current spaces catalog with every space it names (spaces the store cannot read are left out). */
export interface SpacesState {
  address: Address | null;
  catalog: SpacesCatalog;
  spaces: SpaceEntry[];
}

const states = new WeakMap<ObjectStore, SpacesState>();

/** Read the current spaces catalog and its spaces; reused while the spaces ref names the same catalog. */
export async function loadSpacesState(objects: ObjectStore): Promise<SpacesState> {
  const { address, catalog } = await readSpaces(objects);
  const cached = states.get(objects);
  if (cached && cached.address === address) return cached;
  const spaces: SpaceEntry[] = [];
  for (const [name, root] of Object.entries(catalog.spaces)) {
    const space = await readSpace(objects, root as Address);
    if (space) spaces.push({ name, root: root as Address, space });
  }
  const state = { address, catalog, spaces };
  states.set(objects, state);
  return state;
}

/** The per-space page of the site: `/spaces/-/{name}` (`-` is never a space name). */
export function spacePageHref(name: string): string {
  return `/spaces/-/${name}`;
}

const sizeOf = (s: SpaceObject) => s.files.reduce((n, f) => n + f.size, 0);

/**
 * The spaces SectionDescriptor when spaces exist (design 9.1): the catalog is the current
 * `model-hub.spaces` object; every Request names a real space of it, so each runs as written.
 */
export function spacesDescriptor(
  state: SpacesState,
  common: Omit<SectionDescriptor, 'about' | 'inventory' | 'catalog' | 'list' | 'item' | 'fetch' | 'verify'>,
  origin: string,
): SectionDescriptor {
  const first = state.spaces[0] as SpaceEntry;
  const files = state.spaces.reduce((n, s) => n + s.space.files.length, 0);
  const bytes = state.spaces.reduce((n, s) => n + sizeOf(s.space), 0);
  const list: RequestObject[] = [
    {
      method: 'GET',
      url: '/api/v1/objects/{catalog.address}',
      returns: 'the spaces catalog (model-hub.spaces): each space name and its current root',
      dialect: 'objects',
    },
    {
      method: 'GET',
      url: '/spaces?format=json',
      returns: 'this descriptor; the section page (text/html) lists every space with its title and files',
      dialect: 'http',
    },
  ];
  return {
    ...common,
    about:
      'Browser-only apps sealed under one root digest: /spaces/{name}/ runs the current version, /spaces/blake3:{root}/ one sealed version, each file under a sandbox that gives the app an opaque origin.',
    inventory: {
      described: state.spaces.length,
      served_here: state.spaces.length,
      note: `${state.spaces.length} spaces (${state.spaces.map((s) => s.name).join(', ')}), ${files} files, ${bytes} bytes, all served here from the object store.`,
    },
    catalog: {
      address: state.address,
      fetch: '/api/v1/objects/{catalog.address}',
      format: 'model-hub.spaces',
      media_type: 'application/json',
      note: 'canonical JSON; its BLAKE3 is the address. Publishing a space writes a new catalog whose prev names the one before.',
    },
    list,
    item: {
      method: 'GET',
      url: `/api/v1/objects/${first.root}`,
      returns: 'a space object (model-hub.space): name, title, entry, and every file with its path, BLAKE3 address, size and media type',
      dialect: 'objects',
      note: 'its address is the space root; any root from the catalog in its place',
    },
    files: {
      method: 'GET',
      url: `/spaces/${first.name}/`,
      returns: "the space's entry file, run in the browser; X-Space-Root names the root it answered from",
      dialect: 'http',
      note: '/spaces/{name}/{path} answers any file; /spaces/blake3:{root}/… answers one sealed version, cached forever',
    },
    fetch: {
      method: 'GET',
      url: `/spaces/${first.root}/${first.space.entry}`,
      returns: 'one file of a sealed version: its bytes, its media type, ETag "blake3:…" = the address listed in the space object',
      dialect: 'http',
    },
    verify: {
      algorithm: 'blake3',
      expected_from:
        'the space object: each file is listed by the BLAKE3 address of its bytes (also its ETag), and the space object itself hashes to the root named in the catalog',
      server_verifies_on_read: false,
      root: 'the root of a space is the BLAKE3 address of its model-hub.space object; it seals every file',
    },
    one_line: `hub spaces put ./my-app --name my-app --token "$HUB_PUBLISHER_TOKEN" --url ${origin}`,
  };
}

/** The list of spaces on the section page. */
export function spacesSectionHtml(state: SpacesState): string {
  if (state.spaces.length === 0) return '';
  const items = state.spaces
    .map(
      ({ name, root, space }) =>
        `<li><a href="/spaces/${escapeHtml(name)}/"><strong>${escapeHtml(space.title)}</strong></a> <code>${escapeHtml(name)}</code>: ${escapeHtml(space.about)} <span class="muted">(${space.files.length} files, ${formatBytes(sizeOf(space))}; <a href="${spacePageHref(name)}">about</a>; sealed <a class="hash" href="/spaces/${escapeHtml(root)}/">${escapeHtml(root.slice(0, 19))}…</a>)</span></li>`,
    )
    .join('');
  return `<h2>Spaces here</h2><ul>${items}</ul>`;
}

/** The site page of one space: what it is, its root, and every file with its address. */
export function spacePage(entry: SpaceEntry): string {
  const { name, root, space } = entry;
  const rows = space.files
    .map(
      (f) =>
        `<tr><td><a href="/spaces/${escapeHtml(root)}/${escapeHtml(f.path)}">${escapeHtml(f.path)}</a></td><td>${escapeHtml(f.media_type)}</td><td>${formatBytes(f.size)}</td><td class="hash">${escapeHtml(f.address)}</td></tr>`,
    )
    .join('');
  const body = `<h1>${escapeHtml(space.title)}</h1>
<p>${escapeHtml(space.about)}</p>
<p><a href="/spaces/${escapeHtml(name)}/"><strong>Open ${escapeHtml(name)}</strong></a> (the current version) · <a href="/spaces/${escapeHtml(root)}/">this sealed version</a></p>
<dl class="facts"><dt>Name</dt><dd><code>${escapeHtml(name)}</code></dd><dt>Root</dt><dd><a class="hash" href="/api/v1/objects/${escapeHtml(root)}">${escapeHtml(root)}</a></dd>
<dt>Entry</dt><dd>${escapeHtml(space.entry)}</dd><dt>Previous version</dt><dd>${space.prev ? `<a class="hash" href="/spaces/${escapeHtml(space.prev)}/">${escapeHtml(space.prev)}</a>` : 'none'}</dd></dl>
<p class="muted">The space runs sandboxed (an opaque origin): it cannot read this site's storage or cookies. Each file's address is the BLAKE3 of its bytes and its ETag.</p>
<h2>Files</h2><table><thead><tr><th>Path</th><th>Media type</th><th>Size</th><th>Address</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">All spaces: <a href="/spaces">/spaces</a>.</p>`;
  return page({ title: `${space.title} · Spaces · Model hub`, current: 'spaces' }, body);
}

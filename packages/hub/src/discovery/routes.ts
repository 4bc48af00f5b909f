import {
  type CoreDeps,
  describeRoutes,
  errorResponse,
  type HubResponse,
  type IndexStore,
  json,
  type PreparedBody,
  prepare,
  type Route,
  type RouteContext,
  type RouteGroup,
  sendPrepared,
} from '@hub/core-index';
import { liveBuckets } from '../buckets/live.js';
import { apiHtml, apiMarkdown } from '../site/api-docs.js';
import { BROWSE_SORTS, type BrowseSort, browseModels, browsePage, homePage } from '../site/browse.js';
import { DOC_PAGES } from '../site/docs-content.js';
import { escapeHtml, faviconIco, formatBytes, modelHref, page } from '../site/html.js';
import { docHtmlPage, fillModelHealth, healthPage, modelPageTemplate, notFoundPage, sectionPage } from '../site/pages.js';
import { liveSpaces } from '../spaces/live.js';
import { agentCard, llmsTxt, robotsTxt } from './agent.js';
import { DISCOVERY_API } from './api.js';
import { agentBrief } from './brief.js';
import { descriptorOf } from './descriptor.js';
import { liveRegistry } from './live-registry.js';
import { perOrigin } from './memo.js';
import { negotiate } from './negotiate.js';
import { buildOpenApi } from './openapi.js';
import { type LiveSection, SECTIONS, type SectionName, sectionBrief, sectionDescriptor } from './sections.js';

/** Sections described from live state rather than from the index. */
type LiveFor = (deps: CoreDeps) => Promise<LiveSection>;
const LIVE_SECTIONS: Partial<Record<SectionName, LiveFor>> = { registry: liveRegistry, spaces: liveSpaces, buckets: liveBuckets };

/** The sections whose pages belong to another route group than discovery. */
const SECTION_GROUPS: Partial<Record<SectionName, RouteGroup>> = { spaces: 'spaces', buckets: 'buckets' };

const HTML = 'text/html; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const JSON_CT = 'application/json; charset=utf-8';

/** The version of the machine description (spec: Versioning). */
export const OPENAPI_VERSION = '1.0.0';

/** `?format=` overrides `Accept` (so every Link target is fetchable as written). */
function sectionKind(ctx: RouteContext<unknown>): 'html' | 'json' | 'markdown' | 'bad' {
  const f = ctx.query.get('format');
  if (f === null || f === '') return negotiate(ctx.req.headers.get('accept'));
  if (f === 'json') return 'json';
  if (f === 'md' || f === 'markdown') return 'markdown';
  if (f === 'html') return 'html';
  return 'bad';
}

function brief(deps: CoreDeps, origin: string): HubResponse {
  const index = deps.index();
  return sendPrepared(perOrigin(index, 'brief', origin, () => prepare(agentBrief(index, origin), MARKDOWN)));
}

function htmlPrepared(index: IndexStore, key: string, origin: string, build: () => string): PreparedBody {
  return perOrigin(index, key, origin, () => prepare(build(), HTML));
}

function sectionLink(section: SectionName): string {
  return [
    `</${section}?format=json>; rel="alternate"; type="application/json"`,
    `</${section}?format=md>; rel="describedby"; type="text/markdown"`,
    '</openapi.json>; rel="service-desc"; type="application/openapi+json"',
  ].join(', ');
}

function descriptorFor(index: IndexStore, section: SectionName, self: string, origin: string, live?: LiveSection) {
  return perOrigin(index, `section:${section}:${self}:${live?.key ?? ''}`, origin, () =>
    live?.describe ? live.describe(self, origin) : sectionDescriptor(section, index, self, origin),
  );
}

/** The answer of a section route (`/models`, `/models/`, …). */
async function answerSection(
  ctx: RouteContext<CoreDeps>,
  section: SectionName,
  slash: boolean,
  openapi: () => Record<string, unknown>,
  live?: LiveSection,
): Promise<HubResponse> {
  const { deps, origin } = ctx;
  const liveKey = live ? `:${live.key}` : '';
  const index = deps.index();
  const kind = sectionKind(ctx);
  const self = slash ? `/${section}/` : `/${section}`;
  let res: HubResponse;
  if (kind === 'bad') {
    res = errorResponse('hub', 400, 'BadRequest', `format must be json, md or html; leave it out to choose by Accept.`);
  } else if (kind === 'json') {
    res = sendPrepared(
      perOrigin(index, `section-json:${section}:${self}${liveKey}`, origin, () =>
        prepare(`${JSON.stringify(descriptorFor(index, section, self, origin, live), null, 2)}\n`, JSON_CT),
      ),
    );
  } else if (kind === 'markdown') {
    // The brief is the same bytes with or without the trailing slash.
    res = sendPrepared(
      perOrigin(index, `section-md:${section}${liveKey}`, origin, () =>
        prepare(sectionBrief(descriptorFor(index, section, `/${section}`, origin, live), origin), MARKDOWN),
      ),
    );
  } else if (section === 'models' && slash) {
    res = await browse(ctx);
  } else {
    res = sendPrepared(
      htmlPrepared(index, `section-html:${section}${liveKey}`, origin, () => {
        const d = descriptorFor(index, section, `/${section}`, origin, live);
        if (section === 'models') {
          const listed = index.totals.listed;
          return sectionPage(
            d,
            `<p><a href="/models/"><strong>Browse all ${listed} listed models</strong></a> (filter by text, task and library; sort by trending, downloads or likes).</p>`,
          );
        }
        if (section === 'docs') return sectionPage(d, apiHtml(openapi()));
        if (live?.html) return sectionPage(d, live.html);
        return sectionPage(d);
      }),
    );
  }
  res.headers.vary = 'Accept';
  res.headers.link = sectionLink(section);
  return res;
}

async function browse(ctx: RouteContext<CoreDeps>): Promise<HubResponse> {
  const index = ctx.deps.index();
  const sortRaw = ctx.query.get('sort') || 'trending';
  if (!(BROWSE_SORTS as readonly string[]).includes(sortRaw)) {
    return htmlError(400, `sort must be one of ${BROWSE_SORTS.join(', ')}.`, 'Bad request');
  }
  const sort = sortRaw as BrowseSort;
  // `search` as the API names it (and the form sends it); `q` as earlier forms and links did.
  const q = ctx.query.get('search') || ctx.query.get('q') || '';
  const task = ctx.query.get('task') ?? '';
  const library = ctx.query.get('library') ?? '';
  if (q || task || library) {
    // A filter form submitted without JavaScript: rendered for this request only.
    return {
      status: 200,
      headers: { 'content-type': HTML },
      body: browsePage(await browseModels(index, sort), sort, { q, task, library }),
    };
  }
  return sendPrepared(
    await index.memo(`site:browse:${sort}`, async () => prepare(browsePage(await browseModels(index, sort), sort), HTML)),
  );
}

function htmlError(status: number, message: string, title = 'Not found'): HubResponse {
  const body = notFoundPage(message)
    .replace('<h1>Not found</h1>', `<h1>${escapeHtml(title)}</h1>`)
    .replace('<title>Not found', `<title>${escapeHtml(title)}`);
  return { status, headers: { 'content-type': HTML, 'cache-control': 'no-store' }, body };
}

/** The most models an owner page lists. */
const OWNER_PAGE_MAX = 1000;

async function ownerPage(ctx: RouteContext<CoreDeps>): Promise<HubResponse> {
  const index = ctx.deps.index();
  const owner = ctx.params.owner ?? '';
  const { models } = await index.search({ author: owner }, 0, OWNER_PAGE_MAX);
  if (models.length === 0) return htmlError(404, `No model by ${owner} is in today's index. Models are at /models/{owner}/{name}.`);
  const items = models
    .map(
      (m) =>
        `<li><a href="${modelHref(m.id)}">${escapeHtml(m.id)}</a> <span class="muted">${m.files.length} files, ${formatBytes(m.weightBytes)}</span></li>`,
    )
    .join('');
  return {
    status: 200,
    headers: { 'content-type': HTML },
    body: page(
      { title: `${owner} · Model hub`, current: 'models' },
      `<nav aria-label="Breadcrumb"><a href="/models/">Models</a></nav><h1>${escapeHtml(models[0]?.owner ?? owner)}</h1><ul>${items}</ul>`,
    ),
  };
}

async function modelPage(ctx: RouteContext<CoreDeps>): Promise<HubResponse> {
  const { deps, origin } = ctx;
  const index = deps.index();
  const id = `${ctx.params.owner}/${ctx.params.name}`;
  const m = await index.model(id);
  if (!m) return htmlError(404, `${id} is not in today's index. Browse the models that are, or ask for it to be indexed.`);
  const template = perOrigin(index, `site:model:${m.id}`, origin, () => modelPageTemplate(m, origin));
  // Source health changes between probes: the slot is filled on each request.
  return { status: 200, headers: { 'content-type': HTML }, body: fillModelHealth(template, m, deps.health, origin) };
}

function docsPage(ctx: RouteContext<CoreDeps>, openapi: () => Record<string, unknown>): HubResponse {
  const index = ctx.deps.index();
  const name = ctx.params.page ?? '';
  if (name === 'api.md') return sendPrepared(index.memo('docs:api.md', () => prepare(apiMarkdown(openapi()), MARKDOWN)));
  if (name === 'api') {
    return sendPrepared(
      index.memo('docs:api.html', () =>
        prepare(
          page({ title: 'Machine description · Model hub', current: 'docs' }, `<h1>Machine description</h1>${apiHtml(openapi())}`),
          HTML,
        ),
      ),
    );
  }
  const slug = name.replace(/\.md$/, '');
  const doc = DOC_PAGES.find((p) => p.slug === slug);
  if (!doc) return htmlError(404, `No docs page ${name}. The pages are listed at /docs.`);
  if (name.endsWith('.md')) return sendPrepared(index.memo(`docs:${slug}.md`, () => prepare(doc.markdown, MARKDOWN)));
  return sendPrepared(index.memo(`docs:${slug}.html`, () => prepare(docHtmlPage(doc.title, doc.markdown, `/docs/${slug}.md`), HTML)));
}

export interface DiscoveryOptions {
  /** Every route of the hub, for the machine description (defaults to the discovery routes alone). */
  routes?: () => readonly Route<any>[];
}

const FAVICON = faviconIco();

function discoveryRouteTable<D extends CoreDeps>(options: DiscoveryOptions = {}): Route<D>[] {
  let own: Route<D>[] = [];
  const allRoutes = () => options.routes?.() ?? own;
  // The document depends on the route table only, so it is built once per process.
  let openapiCache: { doc: Record<string, unknown>; prepared: PreparedBody } | undefined;
  const openapi = () => {
    openapiCache ??= (() => {
      const doc = buildOpenApi(allRoutes(), OPENAPI_VERSION);
      return { doc, prepared: prepare(`${JSON.stringify(doc, null, 2)}\n`, JSON_CT) };
    })();
    return openapiCache;
  };
  const h = (fn: (ctx: RouteContext<CoreDeps>) => HubResponse | Promise<HubResponse>) => fn as Route<D>['handler'];
  const get = (
    path: string,
    summary: string,
    cache: Route<D>['cache'],
    handler: Route<D>['handler'],
    errors: Route<D>['errors'] = 'hub',
  ): Route<D> => ({
    method: 'GET',
    path,
    rules: 'read',
    group: 'discovery',
    errors,
    cache,
    summary,
    handler,
  });

  const sections: Route<D>[] = SECTIONS.flatMap((section) => {
    const summary = `The ${section} section: SectionDescriptor (Accept: application/json), the section page (text/html) or the Markdown brief`;
    const liveFor = LIVE_SECTIONS[section];
    const answer = (slash: boolean) =>
      liveFor
        ? h(async (ctx) => answerSection(ctx, section, slash, () => openapi().doc, await liveFor(ctx.deps)))
        : h((ctx) => answerSection(ctx, section, slash, () => openapi().doc));
    // A live section changes without an index build: a short cache. The spaces and buckets pages count (and are
    // described) with their own routes, the rest with discovery.
    const cache = liveFor ? 60 : 300;
    const group = SECTION_GROUPS[section] ?? 'discovery';
    return [
      { ...get(`/${section}`, summary, cache, answer(false)), group },
      {
        ...get(
          `/${section}/`,
          section === 'models'
            ? 'The browse page to browsers; the section brief (same bytes as /models) or descriptor to others'
            : `${summary}; same as /${section}`,
          cache,
          answer(true),
        ),
        group,
      },
    ];
  });

  own = [
    {
      ...get(
        '/',
        'The website, the Descriptor or the agent brief, by Accept',
        60,
        h(async ({ req, deps, origin }) => {
          const index = deps.index();
          const kind = negotiate(req.headers.get('accept'));
          const view =
            kind === 'html' ? await index.memo('site:home-view', () => browseModels(index, 'trending')) : { models: [], snapshot: '' };
          const res =
            kind === 'json'
              ? sendPrepared(await descriptorOf(deps))
              : kind === 'html'
                ? sendPrepared(htmlPrepared(index, 'site:home', origin, () => homePage(index, origin, view)))
                : brief(deps, origin);
          res.headers.vary = 'Accept';
          return res;
        }),
      ),
      // Prepared once per index and origin (the log announcement too): the whole answer is kept until the next index.
      reuse: 'index',
    },
    get(
      '/.well-known/model-hub.json',
      'The Descriptor',
      60,
      h(async ({ deps }) => sendPrepared(await descriptorOf(deps))),
    ),
    get(
      '/agent.md',
      'The one-screen agent brief',
      300,
      h(({ deps, origin }) => brief(deps, origin)),
    ),
    get(
      '/api/hub/health',
      'Source health (HubHealth)',
      'no-store',
      h(({ deps }) => json(200, deps.health.snapshot())),
    ),
    get(
      '/openapi.json',
      'The machine description (OpenAPI 3.1)',
      300,
      h(() => sendPrepared(openapi().prepared)),
    ),
    get(
      '/.well-known/openapi.json',
      'The machine description (same bytes as /openapi.json)',
      300,
      h(() => sendPrepared(openapi().prepared)),
    ),
    get(
      '/.well-known/agent-card.json',
      'The AgentCard',
      300,
      h(({ deps, origin }) => {
        const index = deps.index();
        return sendPrepared(
          perOrigin(index, 'agent-card', origin, () =>
            prepare(`${JSON.stringify(agentCard(index, origin, OPENAPI_VERSION), null, 2)}\n`, JSON_CT),
          ),
        );
      }),
    ),
    get(
      '/llms.txt',
      'The documentation index',
      300,
      h(({ deps, origin }) => {
        const index = deps.index();
        return sendPrepared(perOrigin(index, 'llms', origin, () => prepare(llmsTxt(index, origin), TEXT)));
      }),
      'text',
    ),
    get(
      '/robots.txt',
      'robots.txt',
      300,
      h(({ deps, origin }) => sendPrepared(perOrigin(deps.index(), 'robots', origin, () => prepare(robotsTxt(origin), TEXT)))),
      'text',
    ),
    get(
      '/favicon.ico',
      'The favicon',
      86400,
      h(() => ({ status: 200, headers: { 'content-type': 'image/x-icon', etag: '"favicon-1"' }, body: FAVICON })),
      'text',
    ),
    get(
      '/health',
      'Source health for people (HTML)',
      'no-store',
      h(({ deps }) => ({ status: 200, headers: { 'content-type': HTML }, body: healthPage(deps.index(), deps.health) })),
      'text',
    ),
    ...sections,
    get('/models/:owner', "One owner's models (HTML)", 300, h(ownerPage), 'text'),
    get('/models/:owner/:name', 'The model page (HTML): files, sources and their health, commands', 60, h(modelPage), 'text'),
    get(
      '/docs/:page',
      'A docs page: name.md is Markdown, name its HTML twin; api.md is the machine description',
      300,
      h((ctx) => docsPage(ctx, () => openapi().doc)),
      'text',
    ),
  ];
  return own;
}

/** {@link discoveryRouteTable} with each route's API description (DISCOVERY_API) attached. */
export function discoveryRoutes<D extends CoreDeps>(options: DiscoveryOptions = {}): Route<D>[] {
  return describeRoutes(discoveryRouteTable<D>(options), DISCOVERY_API);
}

import { type CoreDeps, describeRoutes, encodePath, errorResponse, type HubResponse, type Route, type RouteContext } from '@hub/core-index';
import { ALIAS_API } from '../discovery/api.js';
import { negotiate } from '../discovery/negotiate.js';
import { modelHref } from './html.js';
import { notFoundPage } from './pages.js';

/**
 * The addresses people copy from the public model host, answered as they expect (issue 27): `/{owner}/{name}` is
 * the model page, `/{owner}/{name}/blob/{rev}/{path}` the file. Both are redirects (302, relative `Location`), so the
 * one page and the one download route stay the only places that answer.
 */
function siteAliasRouteTable<D extends CoreDeps>(): Route<D>[] {
  const h = (fn: (ctx: RouteContext<CoreDeps>) => HubResponse | Promise<HubResponse>) => fn as Route<D>['handler'];
  return [
    {
      method: 'GET',
      path: '/:owner/:name',
      rules: 'read',
      errors: 'text',
      cache: 60,
      summary: "The public host's model address: 302 to the model page /models/{owner}/{name}",
      handler: h(async (ctx) => {
        const m = await ctx.deps.index().model(`${ctx.params.owner}/${ctx.params.name}`);
        if (!m) return notIndexed(ctx);
        return { status: 302, headers: { location: modelHref(m.id) }, body: null };
      }),
    },
    {
      method: 'GET',
      path: '/:owner/:name/blob/:rev/*path',
      rules: 'read',
      errors: 'text',
      cache: 60,
      summary: "The public host's file page address: 302 to the file, /{owner}/{name}/resolve/{rev}/{path}",
      handler: h(async (ctx) => {
        const m = await ctx.deps.index().model(`${ctx.params.owner}/${ctx.params.name}`);
        if (!m) return notIndexed(ctx);
        const location = `/${encodePath(m.id)}/resolve/${encodeURIComponent(ctx.params.rev ?? '')}/${encodePath(ctx.params.path ?? '')}`;
        return { status: 302, headers: { location }, body: null };
      }),
    },
  ];
}

/** A model this index does not hold: the site's page to a browser, one line of text to anything else. */
function notIndexed(ctx: RouteContext<CoreDeps>): HubResponse {
  const id = `${ctx.params.owner}/${ctx.params.name}`;
  const message = `${id} is not in today's index. Browse the models that are at /models/.`;
  if (negotiate(ctx.req.headers.get('accept')) === 'html') {
    return {
      status: 404,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      body: notFoundPage(message),
    };
  }
  return errorResponse('text', 404, 'NotFound', message);
}

/** {@link siteAliasRouteTable} with each route's API description (ALIAS_API) attached. */
export function siteAliasRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(siteAliasRouteTable<D>(), ALIAS_API);
}

import { type CoreDeps, type HubResponse, type Route, json, prepare, sendPrepared } from '@hub/core-index';
import { agentBrief } from './brief.js';
import { preparedDescriptor } from './descriptor.js';
import { homePage } from './home.js';

/** Which representation an `Accept` header asks for on `/`: html for browsers, json, else the Markdown brief. */
export function negotiate(accept: string | null): 'html' | 'json' | 'markdown' {
  if (!accept) return 'markdown';
  const a = accept.toLowerCase();
  if (a.includes('text/html')) return 'html';
  if (a.includes('application/json')) return 'json';
  return 'markdown';
}

function brief(deps: CoreDeps, origin: string): HubResponse {
  const index = deps.index();
  const p = index.memo(`brief:${origin}`, () => prepare(agentBrief(index, origin), 'text/markdown; charset=utf-8'));
  return sendPrepared(p);
}

export function discoveryRoutes<D extends CoreDeps>(): Route<D>[] {
  return [
    {
      method: 'GET',
      path: '/',
      rules: 'read',
      errors: 'hub',
      cache: 60,
      summary: 'The website, the Descriptor or the agent brief, by Accept',
      handler: ({ req, deps, origin }) => {
        const kind = negotiate(req.headers.get('accept'));
        const res =
          kind === 'json'
            ? sendPrepared(preparedDescriptor(deps.index()))
            : kind === 'html'
              ? sendPrepared(deps.index().memo('home', () => prepare(homePage(deps.index()), 'text/html; charset=utf-8')))
              : brief(deps, origin);
        res.headers.vary = 'Accept';
        return res;
      },
    },
    {
      method: 'GET',
      path: '/.well-known/model-hub.json',
      rules: 'read',
      errors: 'hub',
      cache: 60,
      summary: 'The Descriptor',
      handler: ({ deps }) => sendPrepared(preparedDescriptor(deps.index())),
    },
    {
      method: 'GET',
      path: '/agent.md',
      rules: 'read',
      errors: 'hub',
      cache: 300,
      summary: 'The one-screen agent brief',
      handler: ({ deps, origin }) => brief(deps, origin),
    },
    {
      method: 'GET',
      path: '/api/hub/health',
      rules: 'read',
      errors: 'hub',
      cache: 'no-store',
      summary: 'Source health (HubHealth)',
      handler: ({ deps }) => json(200, deps.health.snapshot()),
    },
  ];
}

import { BodyTooLargeError, createHub, type Route } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import type { HubDeps } from '../routes.js';
import { composedHub } from '../testing/test-hub.js';
import { markdownToHtml } from './html.js';

/** Answers a person or a client did not expect (issue 27). */
describe('answers a new user understands', () => {
  it('a wrong publisher token is "not accepted", no token is "needed"', async () => {
    const t = await createTestHub();
    const hub = composedHub(t.deps);
    const put = (headers: Record<string, string>) =>
      request(hub, '/api/v1/objects', { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...headers }, body: 'x' });
    const none = await put({});
    expect(none.status).toBe(401);
    expect(none.json().message).toMatch(/A publisher token is needed/);
    const wrong = await put({ authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.json().message).toMatch(/was not accepted/);
    expect(wrong.json().message).not.toContain('not-the-token');
    expect(wrong.headers['www-authenticate']).toContain('invalid_token');
  });

  it('a 413 on /mcp does not give publishing advice; a publish route does', async () => {
    const big = new BodyTooLargeError(16);
    const throwing = (path: string, method: 'GET' | 'POST', rules: Route<HubDeps>['rules']): Route<HubDeps> => ({
      method,
      path,
      rules,
      errors: 'hub',
      group: 'discovery',
      handler: () => {
        throw big;
      },
    });
    const t = await createTestHub();
    const hub = createHub<HubDeps>(t.deps, [throwing('/mcp', 'POST', 'read'), throwing('/api/v1/objects', 'POST', 'publish')]);
    const mcp = await request(hub, '/mcp', { method: 'POST', body: '{}' });
    expect(mcp.status).toBe(413);
    expect(mcp.json().error).not.toMatch(/chunk|source record/);
    expect(mcp.json().error).toMatch(/JSON-RPC message/);
    const pub = await request(hub, '/api/v1/objects', {
      method: 'POST',
      headers: { authorization: 'Bearer test-publisher-token' },
      body: 'x',
    });
    expect(pub.status).toBe(413);
    expect(JSON.stringify(pub.json())).toMatch(/16 MiB chunks/);
  });

  it('Markdown _emphasis_ renders; snake_case does not', () => {
    expect(markdownToHtml('a redirect to a _source_ that holds it')).toContain('a <em>source</em> that');
    expect(markdownToHtml('the field probe_file and __init__ stay')).toContain('probe_file and __init__ stay');
  });

  it('/docs/sources shows no raw _source_', async () => {
    const t = await createTestHub();
    const hub = composedHub(t.deps);
    const page = await request(hub, '/docs/sources', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/[\s>]_source_[\s<.,]/);
  });
});

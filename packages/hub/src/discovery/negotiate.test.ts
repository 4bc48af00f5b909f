import { createTestHub, request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { composedHub } from '../testing/test-hub.js';
import { negotiate } from './negotiate.js';

describe('Accept negotiation with q-values (RFC 9110 §12.5.1)', () => {
  it.each([
    // q=0 means "not acceptable": a client refusing HTML gets what it does accept
    ['text/html;q=0, application/json', 'json'],
    ['text/html;q=0, */*', 'markdown'],
    // the highest q wins, wherever it stands in the list
    ['text/html;q=0.5, application/json', 'json'],
    ['application/json;q=0.4, text/markdown;q=0.9', 'markdown'],
    ['text/markdown;q=0.2, text/html;q=0.8', 'html'],
    ['application/json;q=0.9, text/html', 'html'],
    // browsers and the old behaviour
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'html'],
    ['application/json', 'json'],
    ['*/*', 'markdown'],
    ['text/*', 'markdown'],
    ['', 'markdown'],
    // the most specific range decides: */* at 1 does not lift an HTML refused by name
    ['*/*;q=1, text/html;q=0', 'markdown'],
    ['text/html;q=0.5, */*', 'markdown'],
    // a tie between named types keeps html, json, Markdown
    ['application/json, text/html', 'html'],
    // nothing acceptable: the brief rather than a 406
    ['image/png', 'markdown'],
    ['application/json;q=0', 'markdown'],
    [' Application/JSON ; Q=0.7 ', 'json'],
  ])('%s → %s', (accept, want) => {
    expect(negotiate(accept)).toBe(want);
  });
  it('no header is the brief', () => expect(negotiate(null)).toBe('markdown'));
});

describe('/ and the sections answer by q-value', () => {
  it('text/html;q=0, application/json on / and /models gets JSON, not the page', async () => {
    const t = await createTestHub();
    const hub = composedHub(t.deps);
    for (const path of ['/', '/models', '/models/']) {
      const r = await request(hub, path, { headers: { accept: 'text/html;q=0, application/json' } });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers.vary).toBe('Accept');
    }
  });
});

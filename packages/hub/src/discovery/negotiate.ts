/**
 * Content negotiation for the pages that answer a person, an agent and a program at one address (`/`, the sections,
 * the aliases people copy from the public host): HTML, JSON or Markdown by `Accept`.
 */
export type Representation = 'html' | 'json' | 'markdown';

/** What each representation is, as a media type, and the order a tie between named types is broken in. */
const OFFERED: ReadonlyArray<[Representation, string]> = [
  ['html', 'text/html'],
  ['json', 'application/json'],
  ['markdown', 'text/markdown'],
];

/**
 * The weight (RFC 9110 §12.5.1) an `Accept` header gives one media type, and how specifically it was named: the most
 * specific matching range decides (`text/html` over `text/*` over the any-type range); 0 when nothing matches.
 */
function weightOf(ranges: Array<{ type: string; sub: string; q: number }>, mediaType: string): { q: number; exact: boolean } {
  const [type, sub] = mediaType.split('/') as [string, string];
  let best: { q: number; rank: number } | undefined;
  for (const r of ranges) {
    const rank = r.type === type && r.sub === sub ? 3 : r.type === type && r.sub === '*' ? 2 : r.type === '*' && r.sub === '*' ? 1 : 0;
    if (rank > 0 && (!best || rank > best.rank)) best = { q: r.q, rank };
  }
  return { q: best?.q ?? 0, exact: best?.rank === 3 };
}

/**
 * Which representation an `Accept` header asks for, by its q-values: the highest weight wins and `q=0` means "not
 * acceptable". A tie between types the header names goes html, json, Markdown (a browser lists text/html first); a
 * tie won only through a wildcard (the any-type range, curl's default) or no header at all gives the Markdown brief. When nothing
 * offered is acceptable the brief is sent anyway (RFC 9110 lets a server disregard the header rather than answer 406).
 */
export function negotiate(accept: string | null): Representation {
  if (!accept?.trim()) return 'markdown';
  const ranges = accept
    .toLowerCase()
    .split(',')
    .map((part) => {
      const [range = '', ...params] = part.split(';').map((x) => x.trim());
      const [type = '', sub = ''] = range.split('/');
      const qParam = params.find((p) => /^q\s*=/.test(p));
      const q = qParam ? Number(qParam.slice(qParam.indexOf('=') + 1).trim()) : 1;
      return { type, sub, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 };
    })
    .filter((r) => r.type && r.sub);
  let winner: { kind: Representation; q: number; exact: boolean } | undefined;
  for (const [kind, mediaType] of OFFERED) {
    const w = weightOf(ranges, mediaType);
    if (w.q <= 0) continue;
    // Higher weight wins; at the same weight a type named outright beats one reached through a wildcard.
    if (!winner || w.q > winner.q || (w.q === winner.q && w.exact && !winner.exact)) winner = { kind, ...w };
  }
  if (!winner) return 'markdown';
  // Reached only through a wildcard (curl's */*, or text/*): the brief.
  if (!winner.exact) return 'markdown';
  return winner.kind;
}

import { fnv1a } from '@hub/core-index';

/**
 * Agent-sized answers: every listing tool renders its answer as blocks (one model, one file, one
 * archive day) and {@link page} keeps as many as fit in {@link TEXT_LIMIT} characters and `limit`
 * rows. What is left is reached with an opaque cursor (the `cursor` argument of the same tool).
 */

/** The most text one tool answer carries in its blocks (8 KB), before it is cut with a cursor. */
export const TEXT_LIMIT = 8000;

export interface Block<T> {
  text: string;
  item: T;
}

export interface Page<T> {
  shown: Block<T>[];
  /** offset of the first block not shown, or null when everything was shown */
  next: number | null;
  total: number;
  offset: number;
}

export function page<T>(blocks: Block<T>[], offset: number, maxRows: number, maxChars = TEXT_LIMIT): Page<T> {
  const shown: Block<T>[] = [];
  let chars = 0;
  let i = offset;
  for (; i < blocks.length && shown.length < maxRows; i++) {
    const b = blocks[i] as Block<T>;
    const size = b.text.length + 1;
    if (shown.length > 0 && chars + size > maxChars) break;
    // A single block over the limit is itself cut, so one answer never exceeds the limit by much.
    shown.push(size > maxChars ? { text: `${b.text.slice(0, maxChars - 20)}… (cut)`, item: b.item } : b);
    chars += Math.min(size, maxChars);
  }
  return { shown, next: i < blocks.length ? i : null, total: blocks.length, offset };
}

interface CursorBody {
  /** tool name */
  t: string;
  /** offset */
  o: number;
  /** index snapshot (catalog address) the offset refers to */
  s: string;
  /** fingerprint of the other arguments */
  h: string;
  /** where the search's walk of an order ended, when it walked one (`SearchPage.after`): the next page goes on there */
  f?: number;
}

/** A fingerprint of a tool's arguments other than `cursor` and `limit`, so a cursor is used with its own query only. */
export function argsFingerprint(args: Record<string, unknown>): string {
  const rest: Record<string, unknown> = {};
  for (const k of Object.keys(args).sort()) if (k !== 'cursor' && k !== 'limit' && args[k] !== undefined) rest[k] = args[k];
  return fnv1a(new TextEncoder().encode(JSON.stringify(rest)));
}

export function encodeCursor(tool: string, offset: number, snapshot: string, args: Record<string, unknown>, from?: number): string {
  const body: CursorBody = { t: tool, o: offset, s: snapshot, h: argsFingerprint(args), ...(from === undefined ? {} : { f: from }) };
  return btoa(JSON.stringify(body)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export class CursorError extends Error {}

/** The offset a cursor points at; throws {@link CursorError} with a message naming the fix. */
export function decodeCursor(cursor: string | undefined, tool: string, snapshot: string, args: Record<string, unknown>): number {
  return decodeCursorAt(cursor, tool, snapshot, args).offset;
}

/** The offset a cursor points at and, for a search that walked an order, where its walk goes on. */
export function decodeCursorAt(
  cursor: string | undefined,
  tool: string,
  snapshot: string,
  args: Record<string, unknown>,
): { offset: number; from?: number } {
  if (cursor === undefined || cursor === '') return { offset: 0 };
  let body: CursorBody;
  try {
    const b64 = cursor.replace(/-/g, '+').replace(/_/g, '/');
    body = JSON.parse(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4))) as CursorBody;
  } catch {
    throw new CursorError(
      `The cursor "${cursor.slice(0, 40)}" is not one this hub gave out. Fix: pass the exact next_cursor of the previous ${tool} answer, or call ${tool} again without cursor.`,
    );
  }
  if (typeof body?.o !== 'number' || !Number.isInteger(body.o) || body.o < 0 || body.t !== tool) {
    throw new CursorError(
      `This cursor belongs to another tool or is damaged. Fix: pass the next_cursor of the previous ${tool} answer, or call ${tool} without cursor.`,
    );
  }
  if (body.s !== snapshot) {
    throw new CursorError(
      `The index changed since this cursor was given out. Fix: call ${tool} again without cursor to start over on today's index.`,
    );
  }
  if (body.h !== argsFingerprint(args)) {
    throw new CursorError(
      `This cursor was given for different ${tool} arguments. Fix: repeat the same arguments with the cursor, or drop the cursor to start a new listing.`,
    );
  }
  const from = Number.isSafeInteger(body.f) && (body.f as number) >= 0 ? body.f : undefined;
  return from === undefined ? { offset: body.o } : { offset: body.o, from };
}

/** 1_000_000 → "1.0M", 7_241_000_000 → "7.2B". */
export function humanCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

import { describe, expect, it } from 'vitest';
import { addInterval, gaps, type Piece, parseDuplicates, parseRangeRecord, pieceBytes, rangeRecord, takePiece } from './ranges.js';

const MiB = 1 << 20;

describe('parseDuplicates (Link rel="duplicate", RFC 6249, as the hub writes it and as others may)', () => {
  it('takes duplicates in pri order with their hub-source names; other rels, schemes and repeats are left out', () => {
    const link = [
      '<https://b.example/f.bin>; rel="duplicate"; pri=2; hub-source="b"',
      '<https://next.example/?p=2>; rel="next"',
      '<http://a.example/f,1.bin>; rel=duplicate; pri=1; hub-source="a"',
      '<ftp://c.example/f.bin>; rel="duplicate"; pri=3',
      '<https://b.example/f.bin>; rel="duplicate"; pri=4; hub-source="b-again"',
      '</relative/f.bin>; rel="describedby duplicate"; title="x, y"',
    ].join(', ');
    expect(parseDuplicates(link, 'https://hub.example/o/n/resolve/main/f.bin')).toEqual([
      { source: 'a', url: 'http://a.example/f,1.bin' },
      { source: 'b', url: 'https://b.example/f.bin' },
      { source: 'hub.example', url: 'https://hub.example/relative/f.bin' },
    ]);
  });

  it('a name unfit for a terminal gives way to the host; nothing or garbage is no source', () => {
    expect(parseDuplicates('<https://m.example/f>; rel="duplicate"; hub-source="a\u001b[2Jb"', 'https://h/')).toEqual([
      { source: 'm.example', url: 'https://m.example/f' },
    ]);
    expect(parseDuplicates(undefined, 'https://h/')).toEqual([]);
    expect(parseDuplicates('<<>>; ;; rel=', 'https://h/')).toEqual([]);
  });
});

describe('intervals, pieces and the range record', () => {
  it('adds and merges intervals, and finds the gaps', () => {
    let done = addInterval([], [10, 20]);
    done = addInterval(done, [0, 5]);
    done = addInterval(done, [5, 10]);
    expect(done).toEqual([[0, 20]]);
    expect(gaps([[2, 4]], 10)).toEqual([
      [0, 2],
      [4, 10],
    ]);
  });

  it('pieces are about four per connection, 64 KiB multiples, between 1 and 32 MiB', () => {
    expect(pieceBytes(200 * MiB, 8)).toBe(Math.ceil((200 * MiB) / 32 / 65536) * 65536);
    expect(pieceBytes(20 * MiB, 64)).toBe(MiB);
    expect(pieceBytes(10_000 * MiB, 2)).toBe(32 * MiB);
  });

  it('an idle connection takes the first free piece, else half of the busy one with most left, else waits', () => {
    const pieces: Piece[] = [
      { start: 0, end: 8 * MiB, pos: 0, got: MiB, busy: true },
      { start: 8 * MiB, end: 10 * MiB, pos: 8 * MiB, got: 8 * MiB, busy: false },
    ];
    expect(takePiece(pieces, 4 * MiB)).toBe(pieces[1]);
    const half = takePiece(pieces, 4 * MiB) as Piece;
    expect([half.start, half.end, pieces[0]?.end]).toEqual([MiB + 3.5 * MiB, 8 * MiB, MiB + 3.5 * MiB]);
    expect(pieces.map((p) => p.start)).toEqual([0, 4.5 * MiB, 8 * MiB]);
    expect(takePiece(pieces, 4 * MiB)).toBe('wait');
    for (const p of pieces) p.busy = false;
    for (const p of pieces) p.pos = p.end;
    expect(takePiece(pieces, 4 * MiB)).toBeUndefined();
  });

  it('a record is read back only for the same file and when sound', () => {
    const file = { sha256: 'a'.repeat(64), size: 100 };
    const text = JSON.stringify(
      rangeRecord(file, [
        [0, 10],
        [20, 30],
      ]),
    );
    expect(parseRangeRecord(text, file)).toEqual([
      [0, 10],
      [20, 30],
    ]);
    expect(parseRangeRecord(text, { ...file, size: 101 })).toBeUndefined();
    expect(parseRangeRecord(text, { ...file, sha256: 'b'.repeat(64) })).toBeUndefined();
    for (const done of [
      [[0, 200]],
      [
        [20, 30],
        [0, 10],
      ],
      [[5, 5]],
      [[0, 1.5]],
      'x',
    ]) {
      expect(parseRangeRecord(JSON.stringify({ ...rangeRecord(file, []), done }), file)).toBeUndefined();
    }
    expect(parseRangeRecord('{', file)).toBeUndefined();
  });
});

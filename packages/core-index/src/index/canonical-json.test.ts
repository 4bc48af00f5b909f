import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units, recursively', () => {
    // RFC 8785 section 3.2.3 sorting example (keys only).
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const out = canonicalJson(input);
    const keys = [...out.matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
    expect(keys).toEqual(['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: [3, { z: 0, y: 1 }] })).toBe('{"a":[3,{"y":1,"z":0}],"b":{"c":2,"d":1}}');
  });

  it('serialises numbers as ECMAScript does (RFC 8785 appendix B vectors)', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1e21, '1e+21'],
      [1e-7, '1e-7'],
      [333333333.3333333, '333333333.3333333'],
      [9007199254740991, '9007199254740991'],
      [4.5, '4.5'],
      [2e-3, '0.002'],
      [0.000001, '0.000001'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [5e-324, '5e-324'],
      [-1e-7, '-1e-7'],
    ];
    for (const [n, s] of cases) expect(canonicalJson(n)).toBe(s);
  });

  it('matches the RFC 8785 section 3.2.2 example', () => {
    const input = {
      // biome-ignore lint/correctness/noPrecisionLoss: the RFC's own input, which rounds to 333333333.3333333
      numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
      string: '\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/',
      literals: [null, true, false],
    };
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('escapes only what JSON requires and keeps other unicode as is', () => {
    expect(canonicalJson('a\u0000b\u001fc\t"\\é😀')).toBe('"a\\u0000b\\u001fc\\t\\"\\\\é😀"');
  });

  it('escapes each character below U+0080 as RFC 8785 says, and the rest of the BMP not at all', () => {
    const named: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };
    for (let c = 0; c < 0x80; c++) {
      const expected = named[c] ?? (c < 0x20 ? `\\u${c.toString(16).padStart(4, '0')}` : String.fromCharCode(c));
      expect(canonicalJson(String.fromCharCode(c))).toBe(`"${expected}"`);
    }
    for (const c of [0x7f, 0x80, 0x2028, 0x2029, 0xfeff, 0xffff])
      expect(canonicalJson(String.fromCharCode(c))).toBe(`"${String.fromCharCode(c)}"`);
    expect(() => canonicalJson({ k: 'a\udc00' })).toThrow();
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow();
    expect(() => canonicalJson(10n)).toThrow();
    expect(() => canonicalJson('\ud800')).toThrow();
  });

  it('drops undefined members and turns undefined array items into null, as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
  });
});

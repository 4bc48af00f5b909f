/**
 * Canonical JSON per RFC 8785 (JSON Canonicalization Scheme).
 *
 * - object members sorted by their UTF-16 code units;
 * - numbers serialised as ECMAScript `Number.prototype.toString` (which is what JCS specifies);
 * - strings escaped with the minimal JSON escapes (`\b \t \n \f \r \" \\` and `\u00XX` for other controls);
 * - no insignificant white space.
 *
 * Values that JSON cannot hold (undefined at the top, functions, symbols, bigint, NaN, Infinity) throw,
 * so a hub object can never be written in a form that does not hash back to its address.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, '$');
}

const encoder = new TextEncoder();

/** The UTF-8 bytes of {@link canonicalJson}. */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalJson(value));
}

function serialize(value: unknown, where: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${where} is not a finite number`);
      // -0 serialises as 0 (ES Number toString already does this).
      return String(value);
    case 'string':
      return quote(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item = value[i];
          out += item === undefined ? 'null' : serialize(item, `${where}[${i}]`);
        }
        return `${out}]`;
      }
      const maybeJson = value as { toJSON?: () => unknown };
      if (typeof maybeJson.toJSON === 'function') return serialize(maybeJson.toJSON(), where);
      // Array.prototype.sort's default order compares UTF-16 code units, as RFC 8785 requires.
      const keys = Object.keys(value).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        if (!first) out += ',';
        first = false;
        out += `${quote(key)}:${serialize(member, `${where}.${key}`)}`;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonicalJson: ${where} has type ${typeof value}, which JSON cannot hold`);
  }
}

/**
 * JSON.stringify of a well-formed string escapes exactly what RFC 8785 escapes (`"`, `\\`, `\b \t \n \f \r`, other
 * controls as `\u00xx` in lower case) and nothing else; a lone surrogate, which it would escape, is refused first.
 */
function quote(s: string): string {
  if (!wellFormed(s)) throw new TypeError('canonicalJson: string holds a lone surrogate, which is not valid UTF-8');
  return JSON.stringify(s);
}

const wellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (s) => !hasLoneSurrogate(s);

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return true;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

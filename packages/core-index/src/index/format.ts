/**
 * Byte sizes for people, written once (issue 13): binary units, labelled as such (1 KiB = 1024 bytes), two
 * significant decimals below 10, one below 100, none above. Used by the site, MCP's answers and `hub get`'s progress.
 */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${Math.max(0, Math.round(Number.isFinite(n) ? n : 0))} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[u]}`;
}

/**
 * One shell argument as a POSIX shell reads it back, written once: left as it is when every character is safe
 * unquoted, else in single quotes (a `'` inside becomes `'\\''`). Used by the site's model page and MCP's answers.
 */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

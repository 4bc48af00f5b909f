// After `tsup`: print the Worker bundle's size (raw and gzip, as Cloudflare counts it) and fail the
// build when the bundle imports anything from Node (workerd runs it without nodejs_compat).
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUILTINS = new Set(builtinModules);

/** Sizes of a bundle and every import of a Node built-in (`node:x`, or a bare `fs`, `stream`, …) left in it. */
export function inspectBundle(code) {
  const forbidden = new Set();
  const specifiers = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;
  for (const m of code.matchAll(specifiers)) {
    const spec = m[1];
    if (spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0])) forbidden.add(spec);
  }
  const bytes = Buffer.byteLength(code);
  return { bytes, gzipBytes: gzipSync(code).byteLength, forbidden: [...forbidden] };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'worker.js');
  const { bytes, gzipBytes, forbidden } = inspectBundle(readFileSync(file, 'utf8'));
  console.log(
    `edge bundle: dist/worker.js ${kib(bytes)} (gzip ${kib(gzipBytes)}; the Workers limit is 3 MiB gzip on the free plan, 10 MiB paid)`,
  );
  if (forbidden.length) {
    console.error(`edge bundle imports Node built-ins, which workerd lacks without nodejs_compat: ${forbidden.join(', ')}`);
    process.exit(1);
  }
}

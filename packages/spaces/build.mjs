// Build each bundled space (verify, gguf) into dist/{name}/: index.html, style.css and one bundled
// app.js (esbuild, browser, ES2020). The output is what `hub serve` seeds through the publish code.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const SPACES = ['verify', 'gguf'];

await rm(path.join(here, 'dist'), { recursive: true, force: true });
for (const name of SPACES) {
  const out = path.join(here, 'dist', name);
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: [path.join(here, name, 'app.ts')],
    outfile: path.join(out, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
    // The package's browser build (its `browser` field; `exports` would pick the Node build with fs).
    alias: { '@huggingface/gguf': path.join(here, 'node_modules', '@huggingface', 'gguf', 'dist', 'browser', 'index.mjs') },
  });
  await copyFile(path.join(here, name, 'index.html'), path.join(out, 'index.html'));
  await copyFile(path.join(here, 'shared', 'style.css'), path.join(out, 'style.css'));
}

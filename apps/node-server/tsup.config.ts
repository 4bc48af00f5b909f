import { defineConfig } from 'tsup';

export default defineConfig([
  // The library root (`@hub/node-server`): the workspace packages stay imports, so an operator's app shares one copy.
  {
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: { entry: 'src/index.ts' },
    clean: true,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
  },
  // The `hub` binary, with the workspace packages and their pure-JS dependencies (zod, @noble/hashes, jose, the MCP
  // SDK, …) inlined and its whitespace and syntax minified (names kept): a start reads, decodes and compiles a few
  // files instead of about 140 (docs/decisions/scale-and-speed.md, "A start loads what it serves"). node-server's own
  // dependencies (native, WASM, worker-thread and CommonJS packages: better-sqlite3, blake3-wasm, pino, prom-client)
  // stay imports. Each command's code is still a chunk of its own, loaded when the command runs; HUB_DEBUG=1 turns
  // the source maps on for its stack traces (cli.ts).
  {
    // `verify-worker.ts`: the worker thread of `hub index verify` (verify-pool.ts), a file of its own.
    entry: ['src/cli.ts', 'src/verify-worker.ts'],
    format: ['esm'],
    dts: false,
    clean: false,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // @hub/model-signing stays an import: its Sigstore libraries are CommonJS (they cannot be inlined into ESM), and
    // only the index run loads them.
    noExternal: [/^@hub\/(?!model-signing)/],
    minifyWhitespace: true,
    minifySyntax: true,
  },
]);

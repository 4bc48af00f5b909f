import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/index.ts', 'src/testing/index.ts'],
    format: ['esm'],
    dts: true,
    clean: false,
    platform: 'neutral',
    target: 'es2022',
    sourcemap: true,
    external: ['vitest'],
  },
  {
    entry: { 'node/index': 'src/node/index.ts' },
    format: ['esm'],
    dts: true,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
  },
]);

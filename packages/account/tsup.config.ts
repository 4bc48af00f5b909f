import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing/index.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  sourcemap: true,
  // The contract suite in ./testing imports vitest; the test runner provides it.
  external: ['vitest'],
});

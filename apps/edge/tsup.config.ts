import { defineConfig } from 'tsup';
// @ts-expect-error: a plain .mjs shared with the test harness
import { workerEsbuildOptions } from './scripts/worker-build.mjs';

export default defineConfig({
  entry: ['src/worker.ts'],
  format: ['esm'],
  dts: false,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  noExternal: [/.*/],
  sourcemap: true,
  // One module: workerd gets a single file, dynamic imports inlined.
  splitting: false,
  esbuildOptions: workerEsbuildOptions,
});

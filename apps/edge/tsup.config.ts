import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/worker.ts'],
  format: ['esm'],
  dts: false,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  noExternal: [/.*/],
  sourcemap: true,
});

import { defineConfig, type Options } from 'tsup';

/**
 * The one build configuration of the runtime-neutral packages: ESM with type declarations, for Node 20+ and
 * Workers alike. `vitest` stays external because the `./testing` contract suites import it from the test run.
 */
export function packageConfig(entry: string[], extra: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    dts: true,
    clean: true,
    platform: 'neutral',
    target: 'es2022',
    sourcemap: true,
    external: ['vitest'],
    ...extra,
  });
}

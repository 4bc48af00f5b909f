// Bundle settings for the Worker, shared by tsup.config.ts (the build) and test/harness.ts (tests
// bundle from the workspace sources). ESM, platform neutral, everything inlined.
import { builtinModules } from 'node:module';

/** Resolve conditions and main fields as wrangler uses them for workerd. */
export const WORKER_CONDITIONS = ['workerd', 'worker', 'browser', 'import', 'default'];
export const WORKER_MAIN_FIELDS = ['browser', 'module', 'main'];

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * Node built-ins reached only through code the Worker never runs (for example the local-file reader
 * of @huggingface/gguf, which the index builder's upstream reader imports lazily) become an empty
 * module, so the bundle imports nothing from Node. Calling into one fails loudly at that point.
 * test/bundle.test.ts checks the bundle holds no `node:` or built-in import.
 */
export const stubNodeBuiltins = {
  name: 'stub-node-builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z:_/]+$/ }, (args) =>
      BUILTINS.has(args.path) ? { path: args.path, namespace: 'node-stub' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'node-stub' }, (args) => ({
      contents: `module.exports = {}; // ${args.path} is not available in the Worker`,
      loader: 'js',
    }));
  },
};

/** esbuild options for the Worker bundle (tsup passes them through `esbuildOptions`). */
export function workerEsbuildOptions(options) {
  options.conditions = WORKER_CONDITIONS;
  options.mainFields = WORKER_MAIN_FIELDS;
  options.platform = 'neutral';
  return options;
}

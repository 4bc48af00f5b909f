// Bundle settings for the Worker, shared by tsup.config.ts (the build) and test/harness.ts (tests
// bundle from the workspace sources). ESM, platform neutral, everything inlined.

/** Resolve conditions and main fields as wrangler uses them for workerd. */
export const WORKER_CONDITIONS = ['workerd', 'worker', 'browser', 'import', 'default'];
export const WORKER_MAIN_FIELDS = ['browser', 'module', 'main'];

/** esbuild options for the Worker bundle (tsup passes them through `esbuildOptions`). */
export function workerEsbuildOptions(options) {
  options.conditions = WORKER_CONDITIONS;
  options.mainFields = WORKER_MAIN_FIELDS;
  options.platform = 'neutral';
  return options;
}

import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pkg = (name: string, sub = 'index') => fileURLToPath(new URL(`./packages/${name}/src/${sub}.ts`, import.meta.url));
const names = [
  'core-index',
  'objects',
  'client',
  'dialect-hf',
  'dialect-oci',
  'mcp',
  'account',
  'hub',
  'node-toolkit',
  'upstream',
  'model-signing',
];

export default defineConfig({
  resolve: {
    // Tests run against the sources of the workspace packages, so a change is tested without a build.
    alias: [
      // the light entries (`hub get` loads no schema library)
      { find: /^@hub\/core-index\/light$/, replacement: pkg('core-index', 'light') },
      { find: /^@hub\/client\/get$/, replacement: pkg('client', 'get') },
      ...names.flatMap((n) => [
        { find: new RegExp(`^@hub/${n}$`), replacement: pkg(n) },
        { find: new RegExp(`^@hub/${n}/testing$`), replacement: pkg(n, 'testing/index') },
        { find: new RegExp(`^@hub/${n}/node$`), replacement: pkg(n, 'node/index') },
      ]),
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A test file mostly waits (on servers, child processes, PostgreSQL, Chromium): one file per core, and two on a
    // machine of two cores, where vitest's default (one less than the cores) ran every file one after the other.
    maxWorkers: Math.max(2, availableParallelism()),
    // Under CI a JSON report lets .ci/run print a plain `N passed, N failed` closing line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-artifacts/vitest.json' }]] : ['default'],
  },
});

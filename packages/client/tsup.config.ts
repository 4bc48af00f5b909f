import { packageConfig } from '../../tooling/tsup.package';

// The runtime-neutral entry (fetch only); the Node file writer under ./node; ./get, what `hub get` loads (no zod).
// All write into dist/.
export default [
  packageConfig(['src/index.ts'], { clean: false }),
  packageConfig([], {
    entry: { 'node/index': 'src/node/index.ts', get: 'src/get.ts' },
    platform: 'node',
    target: 'node20',
    clean: false,
  }),
];

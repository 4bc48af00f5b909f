import { packageConfig } from '../../tooling/tsup.package';

// Node-only (node:crypto through @sigstore/verify): the pinned trusted root is read from ../trusted-root beside dist/.
export default packageConfig(['src/index.ts', 'src/node/index.ts', 'src/testing/index.ts'], { platform: 'node', target: 'node20' });

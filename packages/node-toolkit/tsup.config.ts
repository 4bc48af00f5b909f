import { packageConfig } from '../../tooling/tsup.package';

// Node-only: the demo tree is read from ../demo beside dist/ (or src/ under the tests).
export default packageConfig(['src/index.ts', 'src/testing/index.ts'], { platform: 'node', target: 'node20' });

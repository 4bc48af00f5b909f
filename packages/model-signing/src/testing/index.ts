export { syntheticSigner } from './synthetic-bundle.js';

export { createTestHub, type TestHub, SYNTHETIC_MODELS } from './fixture.js';

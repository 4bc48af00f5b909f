export { accountStoreContract } from './account-store.contract.js';
export { createTestIdentityProvider, type TestIdentityProvider } from './tokens.js';

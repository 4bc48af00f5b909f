export { accountStoreContract } from './account-store.contract.js';
export { type TestIdentityProvider, createTestIdentityProvider } from './tokens.js';

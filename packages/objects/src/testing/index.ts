export { objectStoreContract } from './object-store.contract.js';

export { uploadSessionStoreContract } from './upload-store.contract.js';

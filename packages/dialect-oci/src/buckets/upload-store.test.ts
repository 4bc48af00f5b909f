import { uploadSessionStoreContract } from '../testing/upload-store.contract.js';
import { MemoryUploadSessions } from './upload-store.js';

uploadSessionStoreContract('MemoryUploadSessions', () => new MemoryUploadSessions());

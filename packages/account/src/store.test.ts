import { MemoryAccountStore } from './store.js';
import { accountStoreContract } from './testing/account-store.contract.js';

accountStoreContract('memory', () => new MemoryAccountStore());

export { HeldLease, type LeaseBody, leaseHolder, withFileLock } from './file-lease.js';
export { FsObjectStore, writeFileAtomic } from './fs-object-store.js';

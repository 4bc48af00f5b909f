export { syncDir, writeDurable } from './durable-files.js';
export { HeldLease, type LeaseBody, leaseHolder, releaseLease, renewLease, tryTakeLease, withFileLock } from './file-lease.js';
export { FsObjectStore, objectFile, writeFileAtomic } from './fs-object-store.js';
export { syncFs } from './sync-fs.js';

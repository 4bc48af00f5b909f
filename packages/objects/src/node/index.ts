export { FsObjectStore, writeFileAtomic } from './fs-object-store.js';

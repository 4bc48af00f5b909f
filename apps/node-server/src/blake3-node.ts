import { createRequire } from 'node:module';
import { useBlake3 } from '@hub/core-index';

/** Install blake3-wasm (Node build, loaded synchronously) as the BLAKE3 implementation: about 10× the pure-JS speed. */
export function installFastBlake3(): boolean {
  try {
    const require = createRequire(import.meta.url);
    const b3 = require('blake3-wasm') as { hash(data: Uint8Array): Buffer };
    if (b3.hash(new Uint8Array()).toString('hex') !== 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262') return false;
    useBlake3((bytes) => b3.hash(bytes).toString('hex'));
    return true;
  } catch {
    return false;
  }
}

/** `@hub/node-toolkit/testing`: what the tests of every package and app use on Node (never the hosts). */
export { freePort } from './free-port.js';
export { rawHttp } from './raw-http.js';
export { tempDirs } from './temp-dirs.js';

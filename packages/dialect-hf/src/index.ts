export { hfCachedBytes } from './list-caches.js';
export { hfRoutes } from './routes.js';

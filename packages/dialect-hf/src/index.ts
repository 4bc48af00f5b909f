export { hfCachedBytes } from './list-caches.js';
export { HF_MADE_ANSWERS } from './models.js';
export { hfRoutes } from './routes.js';

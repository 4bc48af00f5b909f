export { hfRoutes } from './routes.js';

export { request, type TestResponse } from './request.js';

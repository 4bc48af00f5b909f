/**
 * A route's API description, carried by the route itself (`route.api`) and written beside it in its package; the
 * hub's OpenAPI builder collects them. The shapes are OpenAPI 3.1 objects; the helpers below keep them short.
 */

type Schema = Record<string, unknown>;
export type ApiContent = Record<string, { schema: Schema }>;

export interface ApiResponse {
  description: string;
  content?: ApiContent;
  headers?: Record<string, { description: string; schema: Schema }>;
}

/** Answers by status (`'200'`, `'302'`, `'404'`, …); errors not listed get the route's error shape as 4XX/5XX. */
export type ApiResponses = Record<string, ApiResponse>;

export interface ApiQuery {
  name: string;
  description: string;
  schema: Schema;
}

export interface RouteApi {
  responses: ApiResponses;
  query?: ApiQuery[];
  /** The request body of a POST/PUT/PATCH (an OpenAPI Request Body object). */
  body?: { required: boolean; content: ApiContent; description?: string };
}

export const str: Schema = { type: 'string' };
export const bin: Schema = { type: 'string', format: 'binary' };
export const JSON_CT = 'application/json';
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (name: string): Schema => ({ type: 'array', items: ref(name) });
export const jsonContent = (schema: Schema): ApiContent => ({ [JSON_CT]: { schema } });
export const header = (description: string) => ({ description, schema: str });
export const ok = (description: string, content: ApiContent): ApiResponses => ({ '200': { description, content } });
export const jsonOk = (name: string, status = '200'): ApiResponses => ({
  [status]: { description: name, content: jsonContent(ref(name)) },
});
export const textOk = (description: string, type: 'text/markdown' | 'text/html' | 'text/plain'): ApiResponses =>
  ok(description, { [type]: { schema: str } });

/**
 * Attach descriptions to routes by `METHOD path`. A description for no route is a mistake in the package (a renamed
 * or removed route): it throws, so every test that builds the routes fails on it.
 */
export function describeRoutes<R extends { method: string; path: string; api?: RouteApi }>(
  routes: R[],
  api: Record<string, RouteApi>,
): R[] {
  const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
  const stale = Object.keys(api).filter((k) => !keys.has(k));
  if (stale.length) throw new Error(`API descriptions for no route: ${stale.join(', ')}`);
  return routes.map((r) => {
    const a = api[`${r.method} ${r.path}`];
    return a ? { ...r, api: a } : r;
  });
}

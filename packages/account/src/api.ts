import { jsonContent, jsonOk, ok, type RouteApi, ref, str } from '@hub/core-index';

/** The account routes' answers and bodies, beside them. */
export const ACCOUNT_API: Record<string, RouteApi> = {
  'GET /api/account/health': { responses: jsonOk('AccountHealth') },
  'GET /api/account/me': { responses: jsonOk('Account') },
  'GET /api/account/saved': { responses: jsonOk('SavedList') },
  'PUT /api/account/saved': { responses: jsonOk('SavedList'), body: { required: true, content: jsonContent(ref('SavedList')) } },
  'POST /api/account/saved/:owner/:name': { responses: jsonOk('SavedList') },
  'DELETE /api/account/saved/:owner/:name': { responses: jsonOk('SavedList') },
  'POST /api/account/request': {
    responses: {
      '201': {
        description: 'Queued for the next index run',
        content: jsonContent({ type: 'object', properties: { model: str, queued: { type: 'boolean' } } }),
      },
    },
    body: { required: true, content: jsonContent({ type: 'object', required: ['model'], properties: { model: str } }) },
  },
  'POST /api/account/publish-interest': { responses: ok('Recorded', jsonContent({ type: 'object', properties: { did: str } })) },
  'PUT /api/account/wallet': {
    responses: jsonOk('Account'),
    body: {
      required: true,
      content: jsonContent({ type: 'object', required: ['wallet'], properties: { wallet: { type: ['string', 'null'] } } }),
    },
  },
};

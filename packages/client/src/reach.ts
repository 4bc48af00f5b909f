/**
 * A request that got no answer at all (refused, no such host, reset) fails with the URL it was sent to: undici's own
 * error is a bare "fetch failed" that leaves the user guessing which hub or source was meant.
 */

/** The network reason of a failed request, short: `ECONNREFUSED`, `ENOTFOUND hub.lan`, or the error's message. */
function reason(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.code ?? err.cause?.message ?? err.message ?? String(e);
}

/** `e` as an error naming `url`, unless it names it already. */
export function namedFailure(url: string, e: unknown): Error {
  const message = e instanceof Error ? e.message : String(e);
  if (message.includes(url)) return e instanceof Error ? e : new Error(message);
  return new Error(`${url}: no answer (${reason(e)})`, { cause: e });
}

/** `f`, with a request that gets no answer failing with its URL. */
export function namingFetch(f: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await f(input, init);
    } catch (e) {
      throw namedFailure(input instanceof Request ? input.url : String(input), e);
    }
  };
}

/** The hub answered, with a status that is not a success (`status` 404 for a model or revision it does not serve). */
export class HubAnswerError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
    body: string,
  ) {
    super(`${url}: ${status} ${body}`.trim());
  }
}

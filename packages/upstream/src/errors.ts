export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status: number | 'network',
    /** the host's `X-Error-Code` (`RepoNotFound`, `GatedRepo`, `EntryNotFound`, …) */
    readonly code?: string,
    /** the host's `X-Error-Message` */
    readonly hostMessage?: string,
  ) {
    super(message);
  }

  /** A failure that another attempt (later today, or tomorrow) may not meet: 429, 408, 5xx, network. */
  get transient(): boolean {
    return this.status === 'network' || retryable(this.status);
  }
}

/** Whether a failure is transient (a network error, an aborted request, or an {@link UpstreamError} that is). */
export function isTransient(e: unknown): boolean {
  if (e instanceof UpstreamError) return e.transient;
  const name = (e as Error)?.name;
  return name === 'TypeError' || name === 'AbortError' || name === 'TimeoutError';
}

/** An {@link UpstreamError} for a non-2xx answer, with the host's error code and message. */
export function errorOf(url: string, res: Response): UpstreamError {
  const code = res.headers.get('x-error-code') ?? undefined;
  const message = res.headers.get('x-error-message') ?? undefined;
  return new UpstreamError(`${url}: HTTP ${res.status}${code ? ` (${code})` : ''}`, url, res.status, code, message);
}

export function retryable(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status !== 501);
}

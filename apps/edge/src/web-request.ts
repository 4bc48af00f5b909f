import type { HostPolicy, HostRequest, HubRequest } from '@hub/core-index';

/**
 * A web `Request` as the hub's one request path reads it (`serve` in core-index): the gate's view of it, and the
 * request itself as the hub's request (a copy only when the admitted URL differs: behind a trusted proxy, the
 * proxy's scheme and host). workerd answers some invalid Hosts itself; a request without one reads the URL's.
 */
export class WebRequest implements HostRequest {
  readonly method: string;
  readonly target: string;
  readonly protocol: string;
  constructor(
    private readonly req: Request,
    readonly policy: HostPolicy,
  ) {
    const url = req.url;
    const slash = url.indexOf('/', url.indexOf('://') + 3);
    this.method = req.method;
    this.target = slash === -1 ? '/' : url.slice(slash);
    this.protocol = url.slice(0, url.indexOf(':'));
  }
  /** A property, not a method: the gate passes it on alone. */
  readonly header = (name: string): string | null =>
    name === 'host' ? (this.req.headers.get('host') ?? new URL(this.req.url).host) : this.req.headers.get(name);
  request(url: string): HubRequest {
    return url === this.req.url ? this.req : new Request(url, this.req);
  }
}

import { type HostPolicy, hostPolicyFrom } from '@hub/core-index';

/**
 * The host policy of design 10.1 at the edge, from its vars through core-index's `hostPolicyFrom` (the one reader of
 * host settings, which node-server's config uses too). A deployed Worker is public (as a node hub bound to 0.0.0.0):
 * `Host` syntax is checked, and absolute URLs come from `BASE_URL` or the validated `Host`. Under `wrangler dev` it
 * serves loopback: with the var `LISTEN_HOST` set to a loopback address (`.dev.vars`), the DNS-rebinding rule applies
 * as on a loopback-bound node hub; `ALLOWED_HOSTS` (a JSON list or a comma list) opens it deliberately, as node's
 * `allowedHosts`. `TRUST_PROXY=true` reads `Forwarded` / `X-Forwarded-*` (a proxy in front of the Worker).
 */
export interface EdgeHostVars {
  BASE_URL?: string;
  LISTEN_HOST?: string;
  ALLOWED_HOSTS?: unknown;
  TRUST_PROXY?: unknown;
}

const policies = new WeakMap<object, HostPolicy>();

/** The policy of this `env` (built once per isolate); a var that cannot be used throws `HostSettingsError`. */
export function edgeHostPolicy(env: EdgeHostVars): HostPolicy {
  let p = policies.get(env);
  if (!p) {
    p = hostPolicyFrom({
      listenHost: env.LISTEN_HOST || '0.0.0.0',
      baseUrl: env.BASE_URL,
      allowedHosts: env.ALLOWED_HOSTS,
      trustProxy: env.TRUST_PROXY,
    });
    policies.set(env, p);
  }
  return p;
}

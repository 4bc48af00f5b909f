import { createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a signature is checked against: the Sigstore trusted root (Fulcio CAs, Rekor keys, CT logs, timestamp
 * authorities) for keyless bundles, and the keys and certificate authorities the operator configures for the
 * `key` and `certificate` methods. Everything is local: verification never reaches the network.
 */
export interface Trust {
  /** a Sigstore `TrustedRoot` document (JSON) */
  trustedRoot: unknown;
  keys: Array<{ name: string; key: KeyObject }>;
  certificateAuthorities: Array<{ name: string; cert: X509Certificate }>;
}

/** The operator's `signing` config block (docs/verification.md). PEM text, or a path to a PEM file. */
export interface SigningConfig {
  /** path to a Sigstore trusted_root.json that replaces the pinned public-good root */
  trustedRoot?: string;
  keys?: Array<{ name: string; publicKey: string }>;
  certificateAuthorities?: Array<{ name: string; certificate: string }>;
}

const PINNED = 'trusted-root/sigstore-public-good.json';

/**
 * The Sigstore public-good trusted root this package pins (trusted-root/README.md says where it came from): beside
 * this module's folder (src/ or dist/), or beside the installed package when this code is bundled into an app (the
 * `hub` binary inlines it into apps/node-server/dist).
 */
export function pinnedTrustedRoot(): string {
  const from = [path.dirname(fileURLToPath(import.meta.url))];
  try {
    from.push(path.dirname(fileURLToPath(import.meta.resolve('@hub/model-signing'))));
  } catch {
    // not resolvable from here (bundled where the package is not installed)
  }
  // the module sits in src/, dist/ or dist/node/: the package root is one or two folders up
  for (const dir of from) for (const up of ['..', '../..']) if (existsSync(path.join(dir, up, PINNED))) return path.join(dir, up, PINNED);
  return path.join(from[0] as string, '..', PINNED);
}

const pem = (value: string) => (value.includes('-----BEGIN') ? value : readFileSync(value, 'utf8'));

/** Builds the trust from the config; throws with a message naming the entry that is wrong. */
export function loadTrust(config: SigningConfig = {}): Trust {
  const rootPath = config.trustedRoot ?? pinnedTrustedRoot();
  let trustedRoot: unknown;
  try {
    trustedRoot = JSON.parse(readFileSync(rootPath, 'utf8'));
  } catch (err) {
    throw new Error(`signing.trustedRoot: cannot read ${rootPath} as JSON (${(err as Error).message})`);
  }
  const keys = (config.keys ?? []).map((k, i) => {
    try {
      return { name: k.name, key: createPublicKey(pem(k.publicKey)) };
    } catch (err) {
      throw new Error(`signing.keys[${i}] (${k.name}): not a public key (${(err as Error).message})`);
    }
  });
  const certificateAuthorities = (config.certificateAuthorities ?? []).map((c, i) => {
    try {
      return { name: c.name, cert: new X509Certificate(pem(c.certificate)) };
    } catch (err) {
      throw new Error(`signing.certificateAuthorities[${i}] (${c.name}): not a certificate (${(err as Error).message})`);
    }
  });
  return { trustedRoot, keys, certificateAuthorities };
}

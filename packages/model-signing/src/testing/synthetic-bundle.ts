import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { keyHint } from '../envelope.js';

/**
 * SYNTHETIC OMS bundles for tests: a key-signed (method `key`) statement over the given resources, with a fresh P-256
 * key. No public bundle with `shards` or a non-SHA-256 hash was found; these stand in for them and say so.
 */
export function syntheticSigner(): {
  publicKey: KeyObject;
  pem: string;
  bundle: (serialization: object, resources: Resource[], root?: string) => Uint8Array;
} {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const bundle = (serialization: object, resources: Resource[], root?: string) => {
    const digest =
      root ??
      createHash('sha256')
        .update(Buffer.concat(resources.map((r) => Buffer.from(r.digest, 'hex'))))
        .digest('hex');
    const statement = {
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: 'SYNTHETIC', digest: { sha256: digest } }],
      predicateType: 'https://model_signing/signature/v1.0',
      predicate: { serialization, resources },
    };
    const payload = Buffer.from(JSON.stringify(statement));
    const type = 'application/vnd.in-toto+json';
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} ${type} ${payload.length} `), payload]);
    return Buffer.from(
      JSON.stringify({
        mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        verificationMaterial: { publicKey: { hint: keyHint(publicKey) }, tlogEntries: [] },
        dsseEnvelope: {
          payload: payload.toString('base64'),
          payloadType: type,
          signatures: [{ sig: sign('sha256', pae, privateKey).toString('base64') }],
        },
      }),
    );
  };
  return { publicKey, pem: publicKey.export({ type: 'spki', format: 'pem' }) as string, bundle };
}

export interface Resource {
  name: string;
  algorithm: string;
  digest: string;
}

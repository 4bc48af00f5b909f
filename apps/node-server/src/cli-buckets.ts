/**
 * `hub buckets put` and `hub buckets get`: their options and commands. Their code (bucket-transfer.ts: the OCI layout
 * pushed or pulled through the hub's OCI routes) is imported when one of them runs.
 */
import { command, type OptionSpecs } from './cli-framework.js';
import { HUB_URL, PUBLISH_URL } from './cli-options.js';

export const BUCKETS_PUT_OPTIONS = {
  name: { type: 'string', arg: 'NAME[:TAG]', help: 'The bucket and tag (default latest).' },
  token: { type: 'string', arg: 'TOKEN', help: 'A registry token of the hub (or HUB_REGISTRY_TOKEN).' },
  url: PUBLISH_URL,
} as const satisfies OptionSpecs;

export const BUCKETS_PUT = command({
  name: 'buckets put',
  summary: 'Push an OCI image layout to a bucket.',
  usage: ['DIR --name NAME[:TAG] --token TOKEN [--url BASE]'],
  description: `Push an OCI image layout (DIR/index.json and DIR/blobs/sha256/…) to the bucket hub/buckets/NAME,
tagged TAG (default latest): every blob checked by the hub against its digest, then each manifest,
then the tag. Blobs the bucket already holds are not sent again. Any OCI client works too
(skopeo copy --preserve-digests --dest-creds USER:TOKEN oci:DIR docker://HOST/hub/buckets/NAME:TAG).`,
  options: BUCKETS_PUT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'DIR (an OCI image layout)' },
  run: async (args) => (await import('./bucket-transfer.js')).bucketsPutCommand(args),
});

export const BUCKETS_GET_OPTIONS = {
  url: { ...HUB_URL, arg: 'BASE' },
} as const satisfies OptionSpecs;

export const BUCKETS_GET = command({
  name: 'buckets get',
  summary: 'Pull a bucket into an OCI image layout, every byte checked.',
  usage: ['NAME[:TAG] DIR [--url BASE]'],
  description: `Pull the bucket hub/buckets/NAME at TAG (default latest) into an OCI image layout in DIR: each
manifest and blob is hashed while it downloads and kept only when it matches its digest (exit 1
otherwise, with nothing written under that digest). Blobs already in DIR that hash right are not
fetched again, so an interrupted pull resumes. Anonymous: bucket reads need no token.`,
  options: BUCKETS_GET_OPTIONS,
  positionals: { min: 2, max: 2, name: 'NAME[:TAG] and DIR' },
  run: async (args) => (await import('./bucket-transfer.js')).bucketsGetCommand(args),
});

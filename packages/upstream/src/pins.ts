import type { Pins, SourceObject } from '@hub/core-index';

/** The pin of a model, when it pins this very revision and is not hidden (ids compared ignoring case). */
export function pinFor(pins: Pins | undefined, id: string, revision: string): { root: string } | undefined {
  if (!pins) return undefined;
  const key = Object.keys(pins.models).find((k) => k.toLowerCase() === id.toLowerCase());
  const pin = key ? pins.models[key] : undefined;
  if (!pin || pin.hidden || pin.revision.toLowerCase() !== revision.toLowerCase()) return undefined;
  return { root: pin.root };
}

/** The IPFS source record of a pinned revision. */
export function pinSource(root: string): Omit<SourceObject, 'kind' | 'model' | 'revision'> {
  return { source: 'ipfs', type: 'ipfs', root };
}

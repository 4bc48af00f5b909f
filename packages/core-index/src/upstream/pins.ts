import { type Pins, PinsSchema, type SourceObject } from '../index/schemas.js';

export const PINS_FORMAT = 'svc.model-hub.pins/v1';

export class PinsError extends Error {}

/** Parse and check an operator's Pins document (`svc.model-hub.pins/v1`). */
export function parsePins(text: string): Pins {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new PinsError(`The pins document is not JSON: ${(e as Error).message}`);
  }
  const parsed = PinsSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new PinsError(
      `The pins document does not match ${PINS_FORMAT}: ${first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'invalid'}. ` +
        'Expected {"format":"svc.model-hub.pins/v1","gateway":"https://…","models":{"owner/name":{"root":"<CID>","revision":"<40-hex commit>"}}}.',
    );
  }
  return parsed.data;
}

export function emptyPins(gateway = 'https://ipfs.io'): Pins {
  return { format: PINS_FORMAT, gateway, models: {} };
}

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

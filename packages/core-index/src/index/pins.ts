import { type Pins, PinsSchema } from './schemas.js';
import { DEFAULT_IPFS_GATEWAY } from './source-kinds.js';

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

export function emptyPins(gateway = DEFAULT_IPFS_GATEWAY): Pins {
  return { format: PINS_FORMAT, gateway, models: {} };
}

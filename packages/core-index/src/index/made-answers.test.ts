import { describe, expect, it } from 'vitest';
import { prepare } from '../http/contract.js';
import {
  MADE_DIGEST_BYTES,
  MADE_PAGE_BYTES,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  MADE_VERSION,
  type MadeHead,
  madeHeadBytes,
  madeHeadRead,
  madeKeyHash,
  madeRecordAnswer,
  madeRecordFields,
  madeRecordRead,
  madeSlotCount,
} from './made-answers.js';

/** The made-answers layout: what the writer puts and the reader takes back, and what a reader refuses. */

const head: MadeHead = {
  kind: 'model-hub.made-answers',
  version: MADE_VERSION,
  catalog: 'blake3:aa',
  pages: 'blake3:bb',
  makers: ['hf:info:1'],
  slots: 64,
  records: 20,
  dataAt: MADE_SLOTS_AT + 64 * MADE_SLOT_BYTES,
  pagesAt: MADE_SLOTS_AT + 64 * MADE_SLOT_BYTES + 800,
  pageCount: 5,
  size: MADE_SLOTS_AT + 64 * MADE_SLOT_BYTES + 800 + 5 * MADE_PAGE_BYTES,
};

describe('made answers layout', () => {
  it('a record gives back its key, content type, ETag and body', () => {
    const answer = prepare({ id: 'ünïcode/modèl', n: 1 });
    const fields = madeRecordFields('hf:info:false:false:ünïcode/modèl', answer);
    if (typeof fields === 'string') throw new Error(fields);
    const record = new Uint8Array(fields.length + MADE_DIGEST_BYTES);
    record.set(fields);
    const read = madeRecordRead(record);
    expect(read?.key).toBe('hf:info:false:false:ünïcode/modèl');
    expect(read?.answer.contentType).toBe(answer.contentType);
    expect(read?.answer.etag).toBe(answer.etag);
    expect(Buffer.from(read?.answer.bytes ?? []).equals(Buffer.from(answer.bytes))).toBe(true);
    // lengths that do not add up to the record's are refused
    expect(madeRecordRead(record.subarray(0, record.length - 1))).toBeUndefined();
    expect(madeRecordFields('k'.repeat(70_000), answer)).toMatch(/too long/);
  });

  it("a record's answer for a key: its key compared as bytes, another key's record null, a record not adding up undefined", () => {
    const answers = ['ünïcode/modèl', 'org/model-1', 'org/model-2'].map((id) => {
      const answer = prepare({ id });
      const fields = madeRecordFields(`hf:info:false:false:${id}`, answer);
      if (typeof fields === 'string') throw new Error(fields);
      const record = new Uint8Array(fields.length + MADE_DIGEST_BYTES);
      record.set(fields);
      return { id, answer, record };
    });
    for (const { id, answer, record } of answers) {
      const got = madeRecordAnswer(record, `hf:info:false:false:${id}`);
      expect(got?.contentType).toBe(answer.contentType);
      expect(got?.etag).toBe(answer.etag);
      expect(Buffer.from(got?.bytes ?? []).equals(Buffer.from(answer.bytes))).toBe(true);
      // the same length, another key; a longer key; the key without its last character
      expect(madeRecordAnswer(record, `hf:info:false:false:${id.slice(0, -1)}X`)).toBeNull();
      expect(madeRecordAnswer(record, `hf:info:false:false:${id}0`)).toBeNull();
      expect(madeRecordAnswer(record, `hf:info:false:false:${id.slice(0, -1)}`)).toBeNull();
      expect(madeRecordAnswer(record.subarray(0, record.length - 1), `hf:info:false:false:${id}`)).toBeUndefined();
    }
    // a non-ASCII key of as many UTF-16 units as the record's bytes of an ASCII one is not taken for it
    const ascii = answers[1] as { record: Uint8Array };
    expect(madeRecordAnswer(ascii.record, 'hf:info:false:false:örg/model-1'.slice(0, 30))).toBeNull();
  });

  it('the head reads back; a cut, foreign or inconsistent head is refused with its reason', () => {
    const bytes = madeHeadBytes(head) as Uint8Array;
    expect(bytes.length).toBe(MADE_SLOTS_AT);
    expect(madeHeadRead(bytes)).toEqual(head);
    expect(madeHeadRead(bytes.subarray(0, 40))).toBe('its head is cut');
    expect(madeHeadRead(new Uint8Array(MADE_SLOTS_AT))).toBe('not a made-answers file');
    expect(madeHeadRead(madeHeadBytes({ ...head, version: 1 as typeof MADE_VERSION }) as Uint8Array)).toMatch(/of version 2/);
    expect(madeHeadRead(madeHeadBytes({ ...head, slots: 48 }) as Uint8Array)).toBe('its slot table does not add up');
    expect(madeHeadRead(madeHeadBytes({ ...head, size: head.size - 1 }) as Uint8Array)).toBe('its head does not add up');
    expect(madeHeadRead(madeHeadBytes({ ...head, pagesAt: 100, size: 100 + 5 * MADE_PAGE_BYTES }) as Uint8Array)).toBe(
      'its head does not add up',
    );
    expect(madeHeadBytes({ ...head, makers: ['x'.repeat(5000)] })).toBeUndefined();
  });

  it('slots: a power of two at least twice the records; a key hashes the same from text or bytes', () => {
    expect(madeSlotCount(0)).toBe(16);
    expect(madeSlotCount(100_000)).toBe(262_144);
    expect(madeSlotCount(131_072)).toBe(262_144);
    const [a1, a2] = madeKeyHash('hf:info:false:false:owner/name');
    expect(madeKeyHash('hf:info:false:false:owner/name')).toEqual([a1, a2]);
    expect(madeKeyHash('hf:info:false:false:owner/nama')).not.toEqual([a1, a2]);
    // the slot picked spreads: 4,096 keys over 8,192 slots leave no slot with more than a few
    const counts = new Map<number, number>();
    for (let i = 0; i < 4096; i++) {
      const s = (madeKeyHash(`hf:info:false:false:org/model-${i}`)[0] as number) & 8191;
      counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(6);
  });
});

import { describe, expect, it } from 'vitest';
import { assignPositions, POSITION_GAP, POSITION_MAX } from './positions.js';

/** Whether the positions ascend strictly and lie in (0, POSITION_MAX]. */
function valid(p: Uint32Array): boolean {
  for (let i = 0; i < p.length; i++)
    if (p[i] === 0 || (p[i] as number) > POSITION_MAX || (i > 0 && (p[i] as number) <= (p[i - 1] as number))) return false;
  return true;
}

const changed = (a: Uint32Array, b: Uint32Array) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);

describe('assignPositions', () => {
  it('gives a first day its ranks times the gap', () => {
    expect([...assignPositions(new Uint32Array(4))]).toEqual([1, 2, 3, 4].map((r) => r * POSITION_GAP));
  });

  it('keeps every position of a day whose models did not move', () => {
    const day1 = assignPositions(new Uint32Array(1000));
    expect(assignPositions(day1)).toEqual(day1);
  });

  it('gives a model added between two others a position between theirs, and moves no other', () => {
    const day1 = assignPositions(new Uint32Array(1000));
    // ten models added, spread through the list (0: no earlier position)
    const was: number[] = [];
    for (let i = 0; i < 1000; i++) {
      if (i % 100 === 50) was.push(0);
      was.push(day1[i] as number);
    }
    const day2 = assignPositions(Uint32Array.from(was));
    expect(valid(day2)).toBe(true);
    expect(changed(Uint32Array.from(was), day2)).toBe(10);
    // and the same again at the same places, day after day: the room runs out and a few neighbours move, not the rest
    let day = day2;
    for (let d = 0; d < 12; d++) {
      const next: number[] = [];
      for (let i = 0; i < day.length; i++) {
        if (i % 101 === 50) next.push(0);
        next.push(day[i] as number);
      }
      const got = assignPositions(Uint32Array.from(next));
      expect(valid(got)).toBe(true);
      expect(changed(Uint32Array.from(next), got)).toBeLessThan(10 * 8);
      day = got;
    }
  });

  it('gives a model that moved far up a new position and keeps the models it passed', () => {
    const day1 = assignPositions(new Uint32Array(100));
    const was = [day1[99] as number, ...day1.slice(0, 99)];
    const day2 = assignPositions(Uint32Array.from(was));
    expect(valid(day2)).toBe(true);
    expect(changed(Uint32Array.from(was), day2)).toBe(1);
    expect(day2[0]).toBeLessThan(day1[0] as number);
  });

  it('keeps positions after models removed, and ends models added at the end after the last', () => {
    const day1 = assignPositions(new Uint32Array(10));
    const was = Uint32Array.from([...day1.filter((_, i) => i % 3 !== 0), 0, 0]);
    const day2 = assignPositions(was);
    expect(valid(day2)).toBe(true);
    expect([...day2.slice(0, -2)]).toEqual([...was.slice(0, -2)]);
    expect(day2[day2.length - 1]).toBe((day2[day2.length - 2] as number) + POSITION_GAP);
  });

  it('spreads the models over a window of neighbours where there is no room, and keeps the rest', () => {
    // positions one apart: no room for the model added between 5 and 6
    const was = Uint32Array.from([
      ...[1, 2, 3, 4, 5].map((v) => v * POSITION_GAP),
      5 * POSITION_GAP + 1,
      0,
      5 * POSITION_GAP + 2,
      7 * POSITION_GAP,
      8 * POSITION_GAP,
    ]);
    const day2 = assignPositions(was);
    expect(valid(day2)).toBe(true);
    expect(day2[0]).toBe(POSITION_GAP);
    expect(day2[9]).toBe(8 * POSITION_GAP);
  });

  it('takes no position twice when earlier positions repeat (a damaged memo), and starts over past the largest', () => {
    expect(valid(assignPositions(Uint32Array.from([64, 64, 64, 0, 128])))).toBe(true);
    expect(valid(assignPositions(Uint32Array.from([POSITION_MAX - 1, 0, 0])))).toBe(true);
  });

  it('keeps the longest ascending run of a shuffled list', () => {
    const was = Uint32Array.from([640, 64, 128, 192, 256, 320, 384, 448, 512, 576]);
    const day2 = assignPositions(was);
    expect(valid(day2)).toBe(true);
    expect(changed(was, day2)).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { mergeKey, type PendingWrite, pickBatch } from './pick-batch.ts';

function pending(table: string, mergeValue: string, acceptedAt: number, queuedAt = 0): PendingWrite {
  return {
    write: { table, mergeOn: 'Key', mergeValue, fields: { Key: mergeValue } },
    acceptedAt,
    queuedAt,
    resolve() {},
    reject() {},
  };
}
const opts = { now: 100, maxRecords: 10, maxWaitMs: 1_000 };

describe('pickBatch', () => {
  it('takes at most ten records from the fullest table, oldest accepted first', () => {
    const contacts = Array.from({ length: 3 }, (_, i) => pending('Contacts', `c${i}`, i));
    const signups = Array.from({ length: 14 }, (_, i) => pending('Signups', `s${i}`, 100 - i));
    const queues = new Map([
      ['Contacts', contacts],
      ['Signups', signups],
    ]);
    const batch = pickBatch(queues, new Set(), opts)!;
    expect(batch.table).toBe('Signups');
    expect(batch.writes.map((w) => w.acceptedAt)).toEqual([87, 88, 89, 90, 91, 92, 93, 94, 95, 96]);
    expect(queues.get('Signups')).toHaveLength(4);
    expect(queues.get('Contacts')).toHaveLength(3);
  });

  it('never puts two writes for one merge key in a request, and sends the earlier accepted first', () => {
    const queues = new Map([
      ['Contacts', [pending('Contacts', 'a', 5), pending('Contacts', 'a', 1), pending('Contacts', 'b', 3)]],
    ]);
    const first = pickBatch(queues, new Set(), opts)!;
    expect(first.writes.map((w) => [w.write.mergeValue, w.acceptedAt])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    const second = pickBatch(queues, new Set(), opts)!;
    expect(second.writes.map((w) => [w.write.mergeValue, w.acceptedAt])).toEqual([['a', 5]]);
    expect(queues.size).toBe(0);
  });

  it('holds back writes whose key is in a request already', () => {
    const a = pending('Contacts', 'a', 1);
    const queues = new Map([['Contacts', [a, pending('Contacts', 'b', 2)]]]);
    const batch = pickBatch(queues, new Set([mergeKey(a.write)]), opts)!;
    expect(batch.writes.map((w) => w.write.mergeValue)).toEqual(['b']);
    expect(pickBatch(queues, new Set([mergeKey(a.write)]), opts)).toBeUndefined();
  });

  it('serves a table whose oldest record waited too long, even when another is fuller', () => {
    const queues = () =>
      new Map([
        ['Signups', Array.from({ length: 10 }, (_, i) => pending('Signups', `s${i}`, i, 3_400))],
        ['Creators', [pending('Creators', 'c', 0, 3_000)]],
      ]);
    expect(pickBatch(queues(), new Set(), { ...opts, now: 3_500 })!.table).toBe('Signups');
    expect(pickBatch(queues(), new Set(), { ...opts, now: 4_000 })!.table).toBe('Creators');
  });
});

import { expect, it } from 'vitest';
import { createWriteBatcher } from './write-batcher.ts';

/** A batcher whose writes wait until released, recording each batch. */
function gated(options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const batcher = createWriteBatcher<number, number>({
    ...options,
    write: async (items) => {
      batches.push(items);
      await new Promise<void>((resolve) => gates.push(resolve));
      return items.map((n) =>
        n < 0 ? { status: 'rejected', reason: new Error(`refused ${n}`) } : { status: 'fulfilled', value: n * 10 },
      );
    },
  });
  const releaseAll = () => {
    for (const open of gates.splice(0)) open();
  };
  return { batcher, batches, releaseAll };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

it('writes what is added in one turn together, and what comes while batches are in flight in the next one', async () => {
  const { batcher, batches, releaseAll } = gated({ maxInFlight: 1 });
  const first = [1, 2, 3].map((n) => batcher.add(n));
  await turn();
  const later = [4, 5].map((n) => batcher.add(n));
  await turn();
  expect(batches).toEqual([[1, 2, 3]]); // one in flight: 4 and 5 wait
  releaseAll();
  expect(await Promise.all(first)).toEqual([10, 20, 30]);
  await turn();
  expect(batches).toEqual([
    [1, 2, 3],
    [4, 5],
  ]);
  releaseAll();
  expect(await Promise.all(later)).toEqual([40, 50]);
});

it('each item gets its own outcome; batches hold at most maxBatch; close writes what it holds', async () => {
  const { batcher, batches, releaseAll } = gated({ maxBatch: 2, maxInFlight: 2 });
  const outcomes = Promise.allSettled([1, -2, 3, 4, 5].map((n) => batcher.add(n)));
  await turn();
  expect(batches).toEqual([
    [1, -2],
    [3, 4],
  ]);
  const closed = batcher.close();
  await expect(batcher.add(6)).rejects.toThrow(/closed/);
  while (batches.length < 3) {
    releaseAll();
    await turn();
  }
  releaseAll();
  await closed;
  expect(batches).toEqual([[1, -2], [3, 4], [5]]);
  expect((await outcomes).map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
    10,
    'refused -2',
    30,
    40,
    50,
  ]);
});

export type WriteBatcher<In, Out> = {
  /** Settles with this item's own outcome, once a batch carrying it was written. */
  add(item: In): Promise<Out>;
  /** Takes no more items, writes those it holds, and resolves once every batch is over. */
  close(): Promise<void>;
};

/**
 * Group commit: items added during one turn of the event loop leave together, and while `maxInFlight`
 * batches are being written, new items wait and leave in the next batch (at most `maxBatch`). So a lone item
 * leaves at once, and under load batches grow with the backlog without any timer. `write` answers one outcome
 * per item, in order: each caller gets its own. The worker's Postgres writes use it (at most 2 batches in
 * flight), and the gateway's claim scripts (`scriptBatch`: every turn's claims at once, none held back).
 */
export function createWriteBatcher<In, Out>({
  write,
  maxBatch = 200,
  maxInFlight = 2,
}: {
  write: (items: In[]) => Promise<PromiseSettledResult<Out>[]>;
  maxBatch?: number;
  maxInFlight?: number;
}): WriteBatcher<In, Out> {
  type Waiting = { item: In; resolve: (out: Out) => void; reject: (err: unknown) => void };
  let waiting: Waiting[] = [];
  const inFlight = new Set<Promise<void>>();
  let scheduled = false;
  let closed = false;

  function schedule() {
    if (scheduled || waiting.length === 0 || inFlight.size >= maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  }

  function flush() {
    scheduled = false;
    while (waiting.length > 0 && inFlight.size < maxInFlight) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      const done: Promise<void> = send(batch).finally(() => {
        inFlight.delete(done);
        schedule();
      });
      inFlight.add(done);
    }
  }

  async function send(batch: Waiting[]) {
    let outcomes: PromiseSettledResult<Out>[];
    try {
      outcomes = await write(batch.map((w) => w.item));
    } catch (err) {
      outcomes = batch.map(() => ({ status: 'rejected', reason: err }));
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome?.status === 'fulfilled') w.resolve(outcome.value);
      else w.reject(outcome ? outcome.reason : new Error('the batch answered no outcome for this item'));
    });
  }

  return {
    add(item) {
      if (closed) return Promise.reject(new Error('the CRM driver is closed'));
      return new Promise<Out>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        schedule();
      });
    },
    async close() {
      closed = true;
      while (waiting.length > 0 || inFlight.size > 0) {
        flush();
        await Promise.race(inFlight);
      }
    },
  };
}

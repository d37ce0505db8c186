/**
 * Bounds one call to Redis: rejects when `work` has not settled within `ms` (an error coded `REDIS_DEADLINE`)
 * or failed, with what `failure` makes of the cause (the gateway a 503; by default the cause itself). One
 * timer and one promise per call; a late rejection of `work` is handled here, never an unhandled one.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, failure: (cause: unknown) => unknown = same): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(failure(Object.assign(new Error(`Redis did not answer within ${ms} ms`), { code: 'REDIS_DEADLINE' }))),
      ms,
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (cause) => {
        clearTimeout(timer);
        reject(failure(cause));
      },
    );
  });
}

function same(cause: unknown): unknown {
  return cause;
}

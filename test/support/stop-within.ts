/**
 * A cluster test's clean-up: each stop in turn, each given `withinMs`, its time printed on one line at the end.
 * A stop past its time is named (`[stop] the worker did not stop within 20000 ms`) and the rest go on: the
 * test has asserted what it proves by then, and a cleanup that hangs would otherwise fail it at its timeout
 * with nothing said. Seen once in a CI run: the partition test, every assertion passed, hung 100 s in its
 * stops (which one was not printed then).
 */
export async function stopWithin(
  stops: [what: string, stop: () => Promise<unknown>][],
  { withinMs = 20_000, label = '[stop] stops' }: { withinMs?: number; label?: string } = {},
): Promise<void> {
  const at = Date.now();
  const ended: string[] = [];
  for (const [what, stop] of stops) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), withinMs);
    });
    const outcome = await Promise.race([
      stop().then(
        () => 'stopped' as const,
        () => 'failed' as const,
      ),
      late,
    ]);
    clearTimeout(timer);
    if (outcome === 'late') console.error(`[stop] ${what} did not stop within ${withinMs} ms`);
    ended.push(`${what} ${outcome === 'stopped' ? '' : `${outcome} `}${Date.now() - at}`);
  }
  console.log(`${label}, ms from the first: ${ended.join(', ')}`);
}

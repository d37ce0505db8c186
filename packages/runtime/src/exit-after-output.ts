type Output = NodeJS.WritableStream;

// Set when a write failed for another reason than a reader that left (a full disk): the process then exits 1.
let writeFailed = false;

/**
 * Output arrives whole (docs/operations.md#the-ops-cli): ends the process with `code` only once what it wrote
 * to stdout and stderr has left it. Node writes to a pipe asynchronously once the pipe is full, and
 * `process.exit()` drops whatever is still queued: `ops spam list --json | wc -c` printed 65536 (one pipe's
 * worth) of 540,161 bytes, with exit status 0 (issue 54). A reader that closed its end early (`| head -1`)
 * is no failure of the command: call `quietWhenReaderCloses` first, and the rest of the output is dropped
 * without an EPIPE stack; the exit status stays the command's own.
 */
export async function exitAfterOutput(
  code: number,
  streams: Output[] = [process.stdout, process.stderr],
): Promise<never> {
  // A write's callback runs once it and every write before it have been handed to the kernel (or failed).
  await Promise.all(streams.map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
  process.exit(code === 0 && writeFailed ? 1 : code);
}

/**
 * A reader that goes away (EPIPE: `| head`, `| less` quit early) ends the output quietly: what is left is
 * dropped. Any other write error is reported on stderr once, as a line.
 */
export function quietWhenReaderCloses(streams: Output[] = [process.stdout, process.stderr]): void {
  for (const stream of streams)
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
      if (!writeFailed && stream !== process.stderr)
        process.stderr.write(`error: could not write the output: ${err.message}\n`);
      writeFailed = true;
    });
}

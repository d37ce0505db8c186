import { setTimeout } from 'node:timers/promises';

type Output = NodeJS.WritableStream;

// Set when a write failed for another reason than a reader that left (a full disk): the process then exits 1.
let writeFailed = false;

/**
 * How long the main thread idles before `process.exit()`. V8 compiles hot functions on background threads, and
 * one that needs a garbage collection waits for the main thread to run it; `process.exit()` joins those
 * threads without running it, and the process hangs for ever, its work done (nodejs/node#54918, open on Node
 * 24: a Ctrl-C during `pnpm start` beside two busy loops hung 8 of 40 starts). Idle, the main thread runs the
 * collection and the compiles end: none of 40 hung with this pause.
 */
const COMPILERS_SETTLE_MS = 100;

/**
 * Every process's one way out (the gateway, the worker, `pnpm start`, `ops`): ends it with `code` once what it
 * wrote to stdout and stderr has left it, and V8's compiler threads have settled (COMPILERS_SETTLE_MS). Node
 * writes to a pipe asynchronously once the pipe is full, and `process.exit()` drops whatever is still queued:
 * `ops spam list --json | wc -c` printed 65536 (one pipe's worth) of 540,161 bytes, with exit status 0
 * (issue 54). A reader that closed its end early (`| head -1`) is no failure of the command: call
 * `quietWhenReaderCloses` first, and the rest of the output is dropped without an EPIPE stack; the exit status
 * stays the command's own. Await it where code follows: it never resolves.
 */
export async function exitProcess(code: number, streams: Output[] = [process.stdout, process.stderr]): Promise<never> {
  // A write's callback runs once it and every write before it have been handed to the kernel (or failed).
  await Promise.all(streams.map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
  await setTimeout(COMPILERS_SETTLE_MS);
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

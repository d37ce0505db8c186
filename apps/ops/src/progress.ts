import { SingleBar } from 'cli-progress';

export type Progress = { tick: () => void; stop: () => void };

/**
 * Count, rate and ETA while a command works through many jobs: a cli-progress bar when a person watches
 * (stderr is a terminal), else a plain line at each tenth, so a log or CI output stays readable. Always on
 * stderr: stdout carries the result (`--json`).
 */
export function startProgress({
  label,
  total,
  stream,
}: {
  label: string;
  total: number;
  stream: NodeJS.WritableStream & { isTTY?: boolean };
}): Progress {
  const started = Date.now();
  let done = 0;
  const rate = () => (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(0);
  if (stream.isTTY) {
    const bar = new SingleBar({
      stream,
      format: `${label} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted}`,
      hideCursor: true,
      etaBuffer: 200,
    });
    bar.start(total, 0, { rate: '0' });
    return {
      tick() {
        done++;
        bar.update(done, { rate: rate() });
      },
      stop: () => bar.stop(),
    };
  }
  const step = Math.max(1, Math.ceil(total / 10));
  return {
    tick() {
      done++;
      if (done % step === 0 || done === total) {
        const left = Number(rate()) > 0 ? Math.round((total - done) / Number(rate())) : 0;
        stream.write(`${label}: ${done}/${total} (${rate()}/s, ETA ${left}s)\n`);
      }
    },
    stop() {},
  };
}

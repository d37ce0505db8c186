import '@forms/runtime/require-supported-node';
import { startTracing, withSpan } from '@forms/observability';

// Tracing first, loaded only when an OTLP endpoint is set (see the gateway's main).
const tracing = await startTracing({ serviceName: 'forms-ops' }, process.env);
const { loadConfig } = await import('./config.ts');
const { readLocalSettings } = await import('@forms/worker');
const { runOps } = await import('./run-ops.ts');
const { exitProcess, quietWhenReaderCloses } = await import('@forms/runtime');

// A reader that quits early (`| head -1`) ends the output quietly; the exit status stays the command's.
quietWhenReaderCloses();

// process.env and what a `pnpm start` left in DATA_DIR are read here only, once, and only when a command needs
// them (so `--help` works anywhere).
let config: import('./config.ts').OpsConfig | undefined;
const argv = process.argv.slice(2);
// The span is named after the command word only (lower-case letters); never after an argument.
const command = /^[a-z]{1,16}$/.test(argv[0] ?? '') ? argv[0] : 'usage';
const code = await withSpan(`ops ${command}`, {}, async (span) => {
  const exit = await runOps(argv, {
    config: () => (config ??= loadConfig(process.env, readLocalSettings(process.env.DATA_DIR || undefined))),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    now: Date.now,
  });
  span.setAttributes({ 'process.exit.code': exit });
  return exit;
});
await tracing.stop();
// Only once the output has left: process.exit() alone cut it at 64 KiB in a pipe (issue 54).
await exitProcess(code);

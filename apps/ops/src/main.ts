import { loadConfig, type OpsConfig } from './config.ts';
import { runOps } from './run-ops.ts';

// process.env is read here only, once, and only when a command needs it (so `--help` works anywhere).
let config: OpsConfig | undefined;
const code = await runOps(process.argv.slice(2), {
  config: () => (config ??= loadConfig(process.env)),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  now: Date.now,
});
process.exit(code);

import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { runOps } from './run-ops.ts';

// Issue 30.5: the guide and each command's --help say what each exit code means for that command.
it("each command's --help says what its exit codes mean", async () => {
  for (const command of [
    ['failed'],
    ['show'],
    ['replay'],
    ['purge'],
    ['status'],
    ['audit'],
    ['erase'],
    ['spam', 'list'],
    ['spam', 'show'],
    ['spam', 'release'],
    ['spam', 'purge'],
  ]) {
    let out = '';
    const stdout = new PassThrough().on('data', (d) => (out += d));
    const code = await runOps([...command, '--help'], {
      config: () => {
        throw new Error('--help reads no configuration');
      },
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      now: Date.now,
    });
    expect(code, command.join(' ')).toBe(0);
    expect(out, command.join(' ')).toMatch(/\nExit codes:\n {2}0 {2}\S.+\n {2}1 {2}\S.+\n {2}2 {2}bad usage/);
  }
});

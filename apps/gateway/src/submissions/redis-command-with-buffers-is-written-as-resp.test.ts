import { Socket } from 'node:net';
import { Command } from 'ioredis';
import { expect, it } from 'vitest';

// patches/ioredis@6.0.0.patch writes a command that has Buffer arguments (every BullMQ add: its packed
// options) in one pass of its own: this holds that pass to the protocol, byte for byte, for every order of
// strings (empty, multi-byte, a lone surrogate, long), numbers and Buffers (empty, long) up to three
// arguments, each command also with a key list in front as a script's call has.
const STRINGS = ['', 'bull:submissions:wait', 'é', '\u{1F600}', '\ud800', 'x'.repeat(5_000)];
const OTHERS = [7, Buffer.alloc(0), Buffer.from([0, 13, 10, 255]), Buffer.alloc(9_000, 0x24)];
const ARGUMENTS: (string | number | Buffer)[] = [...STRINGS, ...OTHERS];

/** RESP as the protocol states it: an array of bulk strings, each its byte length, CRLF, its bytes, CRLF. */
function resp(name: string, args: (string | number | Buffer)[]): Buffer {
  const parts = [name, ...args].map((arg) => (Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg))));
  return Buffer.concat([
    Buffer.from(`*${parts.length}\r\n`),
    ...parts.flatMap((part) => [Buffer.from(`$${part.length}\r\n`), part, Buffer.from('\r\n')]),
  ]);
}

function* orders(length: number): Generator<(string | number | Buffer)[]> {
  if (length === 0) {
    yield [];
    return;
  }
  for (const rest of orders(length - 1)) for (const arg of ARGUMENTS) yield [arg, ...rest];
}

it('writes a command with Buffer arguments as RESP, whatever their order and content', () => {
  const socket = new Socket();
  let commands = 0;
  for (let length = 1; length <= 3; length++) {
    for (const args of orders(length)) {
      if (!args.some(Buffer.isBuffer)) continue;
      for (const withKeys of [args, ['sha', 2, 'key:a', 'key:é', ...args]]) {
        const written = new Command('evalsha', withKeys).toWritable(socket);
        expect(Buffer.isBuffer(written)).toBe(true);
        expect(Buffer.compare(written as Buffer, resp('evalsha', withKeys))).toBe(0);
        commands++;
      }
    }
  }
  expect(commands).toBeGreaterThan(1_000);
});

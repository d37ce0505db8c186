import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger.ts';

// Issue 19, item 3: a Redis refusal wrote the submitter into the log. ioredis attaches the failed command
// to its ReplyError as `err.command = { name, args }`, and for BullMQ's add the args hold the job's JSON;
// the error serializer kept every field but pg's few. Shaped here as ioredis shapes it (the fault test
// `redis-full-logs-the-submitter` does it with a real Redis at maxmemory).
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

const JOB = JSON.stringify({
  data: { email: 'ada@acme.io', name: 'Ada Quillfeather', phoneNumber: '+44 7700 900123' },
});
function replyError(message: string) {
  class ReplyError extends Error {}
  return Object.assign(new ReplyError(message), {
    command: { name: 'evalsha', args: ['5ab4', '8', 'bull:q:wait', JOB, 'Ada Quillfeather'] },
    previousErrors: [{ command: { args: [JOB] } }],
    lastNodeError: { args: [JOB] },
  });
}
// The phone as written, space included: its bare '7700' also turns up in a log line's millisecond time
// (1795770016595 failed CI at 09:00 on 2026-11-27, with no phone in the log).
const SECRETS = ['ada@acme.io', 'Quillfeather', '7700 900123', 'evalsha', 'bull:q:wait'];

describe('an error with the command that failed', () => {
  it('keeps its class, message, stack and code, never the command or its arguments', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'debug' }, stream);
    const oom = Object.assign(replyError("OOM command not allowed when used memory > 'maxmemory'."), { code: 'OOM' });
    logger.warn({ err: oom }, 'queue unavailable');
    logger.warn(oom, 'queue unavailable'); // an error as the first argument lands in `err` too
    // …wrapped as a cause, as the gateway's deadline wraps Redis's errors
    logger.warn(
      {
        err: new Error('enqueue failed', {
          cause: replyError('READONLY You can’t write against a read only replica.'),
        }),
      },
      'x',
    );
    // …and logged under another key, where pino's serializers never look
    logger.warn({ error: replyError('READONLY'), job: { reason: replyError('LOADING') } }, 'y');
    const all = lines.join('');
    for (const secret of SECRETS) expect(all, secret).not.toContain(secret);
    const first = JSON.parse(lines[0]!);
    expect(first.err).toEqual({
      type: 'ReplyError',
      message: "OOM command not allowed when used memory > 'maxmemory'.",
      stack: expect.stringContaining('OOM command not allowed'),
      code: 'OOM',
    });
    expect(JSON.parse(lines[2]!).err.message).toContain('READONLY'); // pino folds the cause into message and stack
    expect(JSON.parse(lines[3]!).error.message).toBe('READONLY');
    expect(JSON.parse(lines[3]!).job.reason.message).toBe('LOADING');
  });
});

import { createInterface } from 'node:readline/promises';
import { SHARED_SECRETS, type SharedSecret, secretCheckValue, sharedSecretKeys } from '@forms/schemas';
import { auditAction, type CliContext, Command, print, UsageError, withExitCodes, withQueue } from '../cli-context.ts';

/**
 * `ops rekey <ID_KEY|ERASURE_KEY>`: records the check value of the secret as this environment sets it, in
 * place of the one the first process recorded, so processes with it become ready and any still on the old
 * one are not (they hold, or take no submission, and say so). The only way to change a shared secret: a
 * process never replaces the recorded value itself. What it costs is in docs/operations.md#shared-secrets:
 * a new ID_KEY derives new ids (a contact's next submission gets a new recordId, keyed retries across the
 * change are not recognised); a new ERASURE_KEY without ERASURE_KEY_PREVIOUS loses the older tombstones.
 */
export function rekeyCommand(ctx: CliContext): Command {
  return withExitCodes(new Command('rekey'), {
    ok: 'recorded (the same value recorded before included)',
    failed: 'Redis unreachable',
    usage: 'not ID_KEY or ERASURE_KEY, the variable not set here, no --yes off a terminal, not confirmed',
  })
    .description('record a new shared secret (ID_KEY or ERASURE_KEY) as the one every process must hold')
    .argument('<variable>', `${SHARED_SECRETS.join(' or ')}`)
    .option('--yes', 'do not ask for confirmation')
    .action(async (variable: string, options: { yes?: boolean }) => {
      if (!(SHARED_SECRETS as readonly string[]).includes(variable))
        throw new UsageError(`<variable> must be ${SHARED_SECRETS.join(' or ')}, not ${variable}`);
      const name = variable as SharedSecret;
      const config = ctx.config();
      const secret = name === 'ID_KEY' ? config.idKey : config.worker().erasureKey;
      if (!secret) throw new UsageError(`${name} is not set here: set it to the new secret first`);
      if (!options.yes) await confirm(ctx, name);
      const key = sharedSecretKeys(config.redis, config.queueName, name).check;
      const value = secretCheckValue(name, secret);
      const before = await withQueue(ctx, async (open) => {
        const audit = await auditAction(ctx, open, { action: 'rekey', filter: { variable: name }, jobIds: [] });
        const previous = await open.redis.set(key, value, 'GET');
        await audit.complete({ outcome: 'ok', count: 0, detail: { changed: previous !== value } });
        return previous;
      });
      print(
        ctx,
        before === value
          ? `${name}: this value was already the recorded one; nothing changed`
          : `${name}: recorded; processes with another ${name} are not ready within 10 s`,
      );
    });
}

async function confirm(ctx: CliContext, name: SharedSecret) {
  if (!ctx.stdin.isTTY) throw new UsageError('not a terminal: add --yes to rekey without a question');
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr });
  try {
    const answer = await rl.question(
      `Every process must then hold this ${name}; the others stop (docs/operations.md#shared-secrets). Type "rekey" to go on: `,
    );
    if (answer.trim() !== 'rekey') throw new UsageError('not confirmed; nothing changed');
  } finally {
    rl.close();
  }
}

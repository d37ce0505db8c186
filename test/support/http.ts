/** POSTs (or PATCHes) JSON, with `headers` besides its content type, and returns the status and parsed body. */
export async function sendJson(
  url: string,
  body: unknown,
  method = 'POST',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

let clients = 0;

/**
 * A client address no earlier call in this test file has given (the documentation ranges, RFC 5737), so a
 * request from it meets the per-client limit afresh.
 */
export function freshClient(): string {
  const n = clients++;
  return `${['198.51.100', '203.0.113', '192.0.2'][Math.floor(n / 254) % 3]}.${(n % 254) + 1}`;
}

/**
 * POSTs JSON from a client of its own (`freshClient`, sent as X-Forwarded-For: the gateway must trust the
 * proxy header, TRUST_PROXY=true), and returns the answer and the address it came from.
 */
export async function sendJsonFromFreshClient(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers; ip: string }> {
  const ip = freshClient();
  return { ...(await sendJson(url, body, 'POST', { 'x-forwarded-for': ip, ...headers })), ip };
}

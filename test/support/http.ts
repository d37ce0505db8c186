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

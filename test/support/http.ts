/** POSTs (or PATCHes) JSON and returns the status and parsed body. */
export async function sendJson(
  url: string,
  body: unknown,
  method = 'POST',
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** A provider's answer read whole within the deadline, or why there is none. */
export type FormAnswer = { text: string; headers: Headers } | { unavailable: string };

/**
 * One form-encoded POST to a spam provider (a challenge's siteverify, Akismet), answer read whole, all
 * within `timeoutMs`. No answer is `{ unavailable }`: `http-<status>` for a status not 2xx, `timeout` past
 * the deadline, `unreachable` for anything else on the way (refused, reset, a name that does not resolve);
 * the caller's layer then abstains.
 */
export async function postForm(url: string, form: URLSearchParams, timeoutMs: number): Promise<FormAnswer> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return { unavailable: `http-${res.status}` };
    }
    return { text: await res.text(), headers: res.headers };
  } catch (err) {
    const name = (err as Error).name;
    return { unavailable: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable' };
  }
}

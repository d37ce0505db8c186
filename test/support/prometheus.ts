import { spawnSync } from 'node:child_process';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';

/** Fetches a /metrics answer with the bearer token and parses it with a maintained text-format parser. */
export async function scrape(url: string, token: string): Promise<{ text: string; families: MetricFamily[] }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const text = await res.text();
  return { text, families: parsePrometheusTextFormat(text) };
}

/** A counter's or gauge's value for the sample whose labels include `labels` (0 when absent). */
export function sampleValue(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  return sampleIfShown(families, name, labels) ?? 0;
}

/** The same, undefined when no such sample is shown: for a series that must be there, at 0 or more. */
export function sampleIfShown(
  families: MetricFamily[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? undefined : Number(sample.value);
}

/**
 * A histogram's observation count (`<name>_count`) for the series whose labels include `labels`.
 * Read from the text: parse-prometheus-text-format 1.1.1 merges the series of a labelled histogram into
 * one, without labels, count or sum (checked: two routes' histograms came out as one bucket map), so it
 * is trusted for counters and gauges only; promtool checks the whole format.
 */
export function histogramCount(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}_count\\{(.*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...match[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[2]);
  }
  return 0;
}

/**
 * Prometheus's own parser and linter (`promtool check metrics`, from Debian's `prometheus` package).
 * `parsed`: no parse error. `ourLintProblems`: lint findings about our `forms_*` metrics; prom-client's
 * default `nodejs_active_handles_total` (a gauge named like a counter) is prom-client's to fix, not ours.
 */
export function promtoolCheck(text: string): {
  available: boolean;
  parsed: boolean;
  ourLintProblems: string[];
  output: string;
} {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  if (run.error) return { available: false, parsed: false, ourLintProblems: [], output: run.error.message };
  const output = `${run.stdout}${run.stderr}`;
  return {
    available: true,
    parsed: !/parsing error/.test(output),
    ourLintProblems: output.split('\n').filter((line) => line.startsWith('forms_')),
    output,
  };
}

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const PROMETHEUS_DIR = new URL('../../infra/prometheus/', import.meta.url);

export type AlertRule = {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
};

/** The alerting rules of infra/prometheus/alerts.yml, every group's, as Prometheus reads them. */
export function readAlertRules(): AlertRule[] {
  const file = parse(readFileSync(new URL('alerts.yml', PROMETHEUS_DIR), 'utf8')) as {
    groups: { rules: AlertRule[] }[];
  };
  return file.groups.flatMap((group) => group.rules.filter((rule) => rule.alert));
}

/**
 * alerts.yml with every duration (each `for:` and each `[range]` or `offset` in an expression) divided by
 * `factor`, never below `floorSeconds`: the live test proves the shipped rules on a scale of seconds
 * instead of minutes, by configuration, not by waiting.
 */
export function scaleRuleDurations(text: string, factor: number, floorSeconds = 3): string {
  const unit: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  const scaled = (amount: string, u: string) =>
    `${Math.max(floorSeconds, Math.round((Number(amount) * unit[u]!) / factor))}s`;
  return text
    .replace(/^(\s*for:\s*)(\d+)([smhd])\s*$/gm, (_, head: string, n: string, u: string) => `${head}${scaled(n, u)}`)
    .replace(/\[(\d+)([smhd])\]/g, (_, n: string, u: string) => `[${scaled(n, u)}]`)
    .replace(/offset (\d+)([smhd])/g, (_, n: string, u: string) => `offset ${scaled(n, u)}`);
}

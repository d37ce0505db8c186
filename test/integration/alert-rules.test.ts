import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROMETHEUS_DIR, readAlertRules } from '../support/alert-rules.ts';

// The shipped alert rules, checked by Prometheus's own promtool (Debian's `prometheus` package, which
// scripts/setup.sh installs): they parse, each one fires on its test series and stays quiet on the near
// miss, and each links a section of the operations guide that exists.
const dir = fileURLToPath(PROMETHEUS_DIR);
const promtool = (...args: string[]) => spawnSync('promtool', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });

type RuleTest = { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] };

describe('infra/prometheus', () => {
  const rules = readAlertRules();

  it('promtool checks the rules and the scrape configuration', () => {
    const rulesCheck = promtool('check', 'rules', 'alerts.yml');
    expect(rulesCheck.error).toBeUndefined();
    expect(rulesCheck.status, rulesCheck.stdout + rulesCheck.stderr).toBe(0);
    expect(rulesCheck.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    const configCheck = promtool('check', 'config', '--syntax-only', 'prometheus.yml');
    expect(configCheck.status, configCheck.stdout + configCheck.stderr).toBe(0);
  });

  it('promtool test rules passes, with a firing and a quiet case for every alert', () => {
    const run = promtool('test', 'rules', 'alerts.test.yml');
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const cases = (parse(readFileSync(`${dir}/alerts.test.yml`, 'utf8')) as { tests: RuleTest[] }).tests.flatMap(
      (test) => test.alert_rule_test ?? [],
    );
    const fires = new Set(cases.filter((c) => (c.exp_alerts ?? []).length > 0).map((c) => c.alertname));
    const quiet = new Set(cases.filter((c) => (c.exp_alerts ?? []).length === 0).map((c) => c.alertname));
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const { alert } of rules) {
      expect(fires, `${alert} has a case where it fires`).toContain(alert);
      expect(quiet, `${alert} has a case where it stays quiet`).toContain(alert);
    }
  });

  it("every rule's runbook_url names a section of docs/operations.md that exists", () => {
    const guide = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const slugger = new GithubSlugger();
    const anchors = new Set([...guide.matchAll(/^#{1,6} (.+)$/gm)].map((heading) => slugger.slug(heading[1]!.trim())));
    const broken = rules
      .map(({ alert, annotations }) => ({ alert, url: annotations?.runbook_url ?? '' }))
      .filter(({ url }) => {
        const [path, anchor] = url.split('#');
        return path !== 'docs/operations.md' || !anchor || !anchors.has(anchor);
      });
    expect(broken).toEqual([]);
    // One section per alert: no two rules share a runbook.
    const urls = rules.map((rule) => rule.annotations?.runbook_url);
    expect(new Set(urls).size).toBe(rules.length);
  });
});

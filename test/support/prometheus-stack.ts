import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forms/local-services';
import { parse, stringify } from 'yaml';
import { PROMETHEUS_DIR, scaleRuleDurations } from './alert-rules.ts';
import { eventually } from './wait.ts';

/** One notification Alertmanager's webhook sent (the fields a test reads). */
type AlertNotification = {
  status: 'firing' | 'resolved';
  alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[];
};

export type PrometheusStack = {
  prometheusUrl: string;
  /** Every notification the webhook receiver got, in arrival order. */
  notifications: AlertNotification[];
  stop: () => Promise<void>;
};

/**
 * A real Prometheus and Alertmanager (Debian's packages) as plain processes on loopback, each with its own
 * temporary data directory and free port, never as services, plus a webhook receiver in this process.
 * Prometheus runs the shipped scrape configuration (infra/prometheus/prometheus.yml) with the targets,
 * token file and Alertmanager replaced, scrape and evaluation every second, and the shipped rules with
 * their durations divided by `scale` (scaleRuleDurations). Alertmanager groups with 1 s waits and sends
 * resolved notices.
 */
export async function startPrometheusStack({
  gatewayTarget,
  workerTarget,
  adminToken,
  scale,
}: {
  gatewayTarget: string;
  workerTarget: string;
  adminToken: string;
  scale: number;
}): Promise<PrometheusStack> {
  const dir = await mkdtemp(join(tmpdir(), 'forms-alerts-'));
  const children: ChildProcess[] = [];
  const notifications: AlertNotification[] = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        notifications.push(JSON.parse(body) as AlertNotification);
      } catch {
        // not a notification: ignored
      }
      res.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;

  const stop = async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const alertmanagerPort = await freePort();
    await writeFile(
      join(dir, 'alertmanager.yml'),
      stringify({
        route: {
          receiver: 'test',
          group_by: ['alertname'],
          group_wait: '1s',
          group_interval: '1s',
          repeat_interval: '1h',
        },
        receivers: [{ name: 'test', webhook_configs: [{ url: receiverUrl, send_resolved: true }] }],
      }),
    );
    children.push(
      launch('prometheus-alertmanager', [
        `--config.file=${join(dir, 'alertmanager.yml')}`,
        `--storage.path=${join(dir, 'alertmanager-data')}`,
        `--web.listen-address=127.0.0.1:${alertmanagerPort}`,
        '--cluster.listen-address=', // no gossip port: one instance
      ]),
    );

    const rules = await readFile(new URL('alerts.yml', PROMETHEUS_DIR), 'utf8');
    await writeFile(join(dir, 'alerts.yml'), scaleRuleDurations(rules, scale));
    await writeFile(join(dir, 'admin-token'), adminToken, { mode: 0o600 });
    const shipped = parse(await readFile(new URL('prometheus.yml', PROMETHEUS_DIR), 'utf8'));
    shipped.global = { scrape_interval: '1s', evaluation_interval: '1s' };
    shipped.rule_files = [join(dir, 'alerts.yml')];
    shipped.alerting.alertmanagers[0].static_configs = [{ targets: [`127.0.0.1:${alertmanagerPort}`] }];
    const targets: Record<string, string> = { 'forms-gateway': gatewayTarget, 'forms-worker': workerTarget };
    for (const job of shipped.scrape_configs) {
      job.static_configs = [{ targets: [targets[job.job_name]] }];
      job.authorization.credentials_file = join(dir, 'admin-token');
    }
    await writeFile(join(dir, 'prometheus.yml'), stringify(shipped));
    const prometheusPort = await freePort();
    children.push(
      launch('prometheus', [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'prometheus-data')}`,
        `--web.listen-address=127.0.0.1:${prometheusPort}`,
        '--rules.alert.resend-delay=1s',
      ]),
    );
    const prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    await eventually(() => ready(`${prometheusUrl}/-/ready`), { timeoutMs: 30_000, everyMs: 200 });
    await eventually(() => ready(`http://127.0.0.1:${alertmanagerPort}/-/ready`), { timeoutMs: 30_000, everyMs: 200 });
    return { prometheusUrl, notifications, stop };
  } catch (err) {
    await stop();
    throw err;
  }

  function launch(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4_000)));
    // Not installed: said plainly (the readiness wait then fails) rather than as an unhandled 'error' event.
    child.on('error', (err) => console.error(`${command}: ${err.message} (scripts/setup.sh installs it)`));
    child.on('exit', (code) => {
      if (code && code !== 0 && code !== 143) console.error(`${command} exited ${code}: ${stderr}`);
    });
    return child;
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

/** Prometheus's view of its targets' health, by job (`up`). */
export async function targetsUp(prometheusUrl: string): Promise<Record<string, string>> {
  const res = await fetch(`${prometheusUrl}/api/v1/targets`);
  const body = (await res.json()) as { data: { activeTargets: { labels: { job: string }; health: string }[] } };
  return Object.fromEntries(body.data.activeTargets.map((t) => [t.labels.job, t.health]));
}

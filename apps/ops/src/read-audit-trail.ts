import type { OpsRedis } from './open-queue.ts';

/** One ops action as the trail tells it: its `started` entry joined with its `completed` one, if any. */
export type AuditedAction = {
  id: string;
  at: string;
  actor: string;
  action: string;
  filter: unknown;
  /** How many jobs it meant to act on. */
  count: number;
  jobIds: string[];
  /** `incomplete`: started, never completed (the action died midway, or is still running). */
  outcome: 'ok' | 'partial' | 'failed' | 'incomplete';
  /** How many jobs it changed, once completed. */
  changed?: number;
  completedAt?: string;
  detail?: unknown;
};

const PAGE = 500;

/**
 * The audit stream's actions started at or after `sinceMs`, oldest first, read a page at a time (the
 * stream is capped, so this is bounded).
 */
export async function readAuditTrail(redis: OpsRedis, key: string, sinceMs = 0): Promise<AuditedAction[]> {
  const actions: AuditedAction[] = [];
  const byId = new Map<string, AuditedAction>();
  let start = `${Math.max(0, Math.floor(sinceMs))}-0`;
  for (;;) {
    const page = (await redis.xrange(key, start, '+', 'COUNT', PAGE)) as [string, string[]][];
    for (const [id, flat] of page) {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
      if (f.step === 'started') {
        const action: AuditedAction = {
          id,
          at: new Date(Number(id.split('-')[0])).toISOString(),
          actor: f.actor ?? '',
          action: f.action ?? '',
          filter: parse(f.filter),
          count: Number(f.count ?? 0),
          jobIds: (parse(f.jobIds) as string[] | undefined) ?? [],
          outcome: 'incomplete',
        };
        actions.push(action);
        byId.set(id, action);
      } else if (f.step === 'completed' && f.of) {
        const action = byId.get(f.of);
        if (!action) continue; // started before --since
        action.outcome = f.outcome as AuditedAction['outcome'];
        action.changed = Number(f.count ?? 0);
        action.completedAt = new Date(Number(id.split('-')[0])).toISOString();
        if (f.detail) action.detail = parse(f.detail);
      }
    }
    if (page.length < PAGE) break;
    start = `(${page[page.length - 1]![0]}`;
  }
  return actions;
}

function parse(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

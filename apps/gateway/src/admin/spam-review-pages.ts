import { type HeldSubmission, maskHeld } from '@forms/quarantine';
import { SPAM_LAYERS, type SpamJudgement, type SpamLayer } from '@forms/schemas';

/**
 * The admin wing's spam review, as HTML: plain forms and links that work with JavaScript off. Each row's
 * controls are named for the submission they act on (visually hidden text read by screen readers), the
 * checkboxes have labels, the table has a caption and column headers, and the order of focus is the order
 * of reading (filters, then the bulk actions, then row by row). Nothing the submitter wrote is shown but
 * masked, except on the reveal page a person asked for (audited).
 */

const LAYER_WORDS: Record<SpamLayer, string> = {
  honeypot: 'Hidden field filled',
  rules: 'Rules',
  filter: 'Content filter',
  challenge: 'Challenge',
  akismet: 'Akismet',
};

export const AGE_WINDOWS = {
  any: { words: 'any time', minAgeMs: undefined, maxAgeMs: undefined },
  hour: { words: 'in the last hour', minAgeMs: undefined, maxAgeMs: 3_600_000 },
  day: { words: 'in the last day', minAgeMs: undefined, maxAgeMs: 86_400_000 },
  older: { words: 'more than a day ago', minAgeMs: 86_400_000, maxAgeMs: undefined },
} as const;
export type AgeWindow = keyof typeof AGE_WINDOWS;

export type ListView = {
  rows: (HeldSubmission & { heldAt: number })[];
  total: number;
  offset: number;
  next?: number | undefined;
  filter: { layer?: SpamLayer | undefined; reason?: string | undefined; age: AgeWindow };
  notice?: string | undefined;
  now: number;
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:1.5rem;color:#111;background:#fff}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #888;padding:.35rem;vertical-align:top;text-align:left}
caption{text-align:left;font-weight:bold;padding:.5rem 0}.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
fieldset{margin:.5rem 0}button{margin:.1rem}pre{white-space:pre-wrap;margin:0;font-size:.9em}
.notice{border:2px solid #05631f;padding:.5rem}a{color:#0645ad}:focus{outline:3px solid #b35900}`;

function page(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** "Rules: link bot (3 links)": a reason as a person reads it; the detail is configuration or a score. */
function reasonInWords(r: SpamJudgement['reasons'][number]): string {
  return `${LAYER_WORDS[r.layer]}: ${r.code.replace(/[-_]+/g, ' ')}${r.detail ? ` (${r.detail})` : ''}`;
}

function ageInWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129_600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

function markInWords(reviewed: NonNullable<SpamJudgement['reviewed']>): string {
  return `Reviewed: marked ${reviewed.label === 'spam' ? 'spam' : 'not spam'} by ${reviewed.by}, ${reviewed.at.slice(0, 16).replace('T', ' ')} UTC`;
}

function fieldsList(data: unknown): string {
  if (!data || typeof data !== 'object') return '<p>(no fields)</p>';
  const items = Object.entries(data as Record<string, unknown>).map(
    ([name, value]) =>
      `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))}</dd>`,
  );
  return `<dl>${items.join('')}</dl>`;
}

function query(filter: ListView['filter'], offset?: number): string {
  const q = new URLSearchParams();
  if (filter.layer) q.set('layer', filter.layer);
  if (filter.reason) q.set('reason', filter.reason);
  if (filter.age !== 'any') q.set('age', filter.age);
  if (offset) q.set('offset', String(offset));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The list: filters, the bulk actions over the checked rows, then one row per held submission. */
export function listPage(view: ListView): string {
  const { filter } = view;
  const layerOptions = ['', ...SPAM_LAYERS]
    .map(
      (l) =>
        `<option value="${l}"${filter.layer === l || (!filter.layer && !l) ? ' selected' : ''}>${l ? LAYER_WORDS[l as SpamLayer] : 'Any layer'}</option>`,
    )
    .join('');
  const ageOptions = Object.entries(AGE_WINDOWS)
    .map(([key, w]) => `<option value="${key}"${filter.age === key ? ' selected' : ''}>Held ${w.words}</option>`)
    .join('');
  const rows = view.rows.map((row) => rowHtml(row, view.now)).join('\n');
  const narrowed = filter.layer || filter.reason;
  const summary =
    view.rows.length === 0
      ? `<p>Nothing held${view.total > 0 ? ' matches on this page of the quarantine' : ''}.</p>`
      : `<p>${view.total} held ${AGE_WINDOWS[filter.age].words}${narrowed ? ' (before narrowing by layer or reason)' : ''}; showing ${view.rows.length} from position ${view.offset + 1}, newest first.</p>`;
  const paging = [
    view.offset > 0 ? `<a href="/admin/spam${query(filter)}">Newest</a>` : '',
    view.next !== undefined ? `<a href="/admin/spam${query(filter, view.next)}">Next page</a>` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return page(
    'Spam quarantine',
    `<h1>Spam quarantine</h1>
${view.notice ? `<p class="notice" role="status">${escapeHtml(view.notice)}</p>` : ''}
<form method="get" action="/admin/spam">
<fieldset><legend>Narrow the list</legend>
<label for="layer">Layer</label> <select id="layer" name="layer">${layerOptions}</select>
<label for="reason">Reason code</label> <input id="reason" name="reason" value="${escapeHtml(filter.reason ?? '')}" size="16">
<label for="age">Age</label> <select id="age" name="age">${ageOptions}</select>
<button type="submit">Narrow</button>
</fieldset>
</form>
${summary}
<form method="post" action="/admin/spam/actions">
<fieldset><legend>With the checked submissions</legend>
<button type="submit" name="act" value="release">Release checked (deliver; not spam)</button>
<button type="submit" name="act" value="mark">Mark checked as spam</button>
<button type="submit" name="act" value="purge">Purge checked…</button>
</fieldset>
<table>
<caption>Held submissions, newest first</caption>
<thead><tr><th scope="col">Pick</th><th scope="col">Submission</th><th scope="col">Form</th><th scope="col">Held for</th><th scope="col">Reasons</th><th scope="col">Filter score</th><th scope="col">Agent</th><th scope="col">Text (masked)</th><th scope="col">Actions</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</form>
${paging ? `<nav aria-label="Pages">${paging}</nav>` : ''}
<p><a href="/admin/queues">The queue (Bull Board)</a></p>`,
  );
}

function rowHtml(row: HeldSubmission & { heldAt: number }, now: number): string {
  const id = escapeHtml(row.id);
  const { data, judgement } = maskHeld(row);
  const reasons = judgement?.reasons.length
    ? `<ul>${judgement.reasons.map((r) => `<li>${escapeHtml(reasonInWords(r))}</li>`).join('')}</ul>`
    : 'No reasons kept';
  const named = (verb: string) => `<span class="vh"> ${verb === 'Reveal' ? 'the fields of ' : ''}${id}</span>`;
  const button = (act: string, verb: string) =>
    `<button type="submit" name="act" value="${act}:${id}">${verb}${named(verb)}</button>`;
  return `<tr>
<td><input type="checkbox" name="id" value="${id}" id="pick-${id}"><label for="pick-${id}"><span class="vh">Pick ${id}</span></label></td>
<th scope="row">${id}${judgement?.reviewed ? `<br><strong>${escapeHtml(markInWords(judgement.reviewed))}</strong>` : ''}</th>
<td>${escapeHtml(row.payload?.kind ?? `malformed: ${row.malformed ?? '?'}`)}</td>
<td>${ageInWords(now - row.heldAt)}</td>
<td>${reasons}</td>
<td>${judgement?.score === undefined ? 'not scored' : judgement.score.toFixed(2)}</td>
<td>${judgement?.agent ? escapeHtml(judgement.agent) : '—'}</td>
<td>${row.payload ? fieldsList(data) : ''}</td>
<td>${row.payload ? `${button('release', 'Release')}${button('mark', 'Mark spam')}` : ''}${button('purge', 'Purge')}${row.payload ? button('reveal', 'Reveal') : ''}</td>
</tr>`;
}

/** Purge asks once more, listing what would go; the confirming form carries the ids. */
export function confirmPurgePage(ids: string[]): string {
  const hidden = ids.map((id) => `<input type="hidden" name="id" value="${escapeHtml(id)}">`).join('\n');
  return page(
    'Purge held submissions?',
    `<h1>Purge ${ids.length} held submission${ids.length === 1 ? '' : 's'} for good?</h1>
<p>They are dropped from the quarantine and never delivered; the filter is not taught. This cannot be undone.</p>
<ul>${ids.map((id) => `<li>${escapeHtml(id)}</li>`).join('')}</ul>
<form method="post" action="/admin/spam/purge">
${hidden}
<button type="submit" name="confirm" value="yes">Purge ${ids.length} for good</button>
</form>
<p><a href="/admin/spam">Cancel, back to the quarantine</a></p>`,
  );
}

/** One held submission unmasked, after an audited reveal. */
export function revealPage(entry: HeldSubmission): string {
  const id = escapeHtml(entry.id);
  const judgement = entry.judgement;
  return page(
    `Held submission ${entry.id}`,
    `<h1>Held submission ${id}</h1>
<p>Shown unmasked at your request; the reveal is recorded in the audit trail.</p>
<p>${escapeHtml(entry.payload?.kind ?? '')}, accepted ${escapeHtml(entry.payload?.acceptedAt ?? '')}${judgement?.client ? `, from ${escapeHtml(judgement.client.ip)}` : ''}</p>
<h2>Reasons</h2>
<ul>${(judgement?.reasons ?? []).map((r) => `<li>${escapeHtml(reasonInWords(r))}</li>`).join('')}</ul>
<h2>Fields</h2>
${fieldsList(entry.payload?.data)}
<p><a href="/admin/spam">Back to the quarantine</a></p>`,
  );
}

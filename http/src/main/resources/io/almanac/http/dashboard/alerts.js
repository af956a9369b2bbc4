// The Alerts page (#/alerts): the cluster's alert history from GET /api/alerts, newest first, with where each alert
// went (each sink's latest state and attempts); filtered by task and time, paged with the answer's next.
// An ES module; values go into the page as text.

import { $, el, enc, getJson, say, shown, taskHref, unsay, windowHref } from './common.js';

/** An instant of the API (UTC) as the page shows it, under a column that says UTC: "2026-11-29 08:00:00". */
const utc = (iso) => shown(iso).replace(/Z$/, '');

const LIMIT = 50;
/** The page's cursors: befores[i] is the `before` of page i (null: the newest). */
const pageState = { befores: [null], next: null, filter: { task: '', since: '' } };

function deliveryBadge(d) {
  return el('span', { className: 'delivery ' + d.status.toLowerCase(), dataset: { sink: d.sink, status: d.status },
    title: d.sink + ': ' + d.status + ', ' + d.attempts + (d.attempts === 1 ? ' attempt' : ' attempts')
      + (d.detail ? '\n' + d.detail : '') + '\n' + shown(d.at) + ' UTC',
    text: d.sink + ' · ' + d.status + ' (' + d.attempts + ')' });
}

function alertRow(a) {
  return el('tr', { dataset: { seq: String(a.seq), kind: a.kind, task: a.task || '', window: a.window || '' } },
    el('td', { className: 'time', text: utc(a.at) }),
    el('td', { className: 'kind' }, el('span', { className: 'badge kind-' + a.kind, text: a.kind })),
    el('td', { className: 'alert-task' }, a.task ? el('a', { href: taskHref(a.task), text: a.task }) : '–'),
    el('td', { className: 'alert-window' }, a.task && a.window ? el('a', { href: windowHref(a.task, a.window), text: a.window }) : '–'),
    el('td', { className: 'deliveries' }, ...(a.deliveries.length ? a.deliveries.map(deliveryBadge)
      : [el('span', { className: 'muted', text: 'not reported yet' })])),
    el('td', { className: 'alert-message', text: a.message }),
    el('td', { className: 'alert-node muted', text: a.node }));
}

/** Reads the page again after a filter or a page button; a refused filter (400) is said, naming the field. */
function again() {
  refresh().then(unsay, (e) => say('Cannot read the alerts: ' + e.message, 'error'));
}

/** Builds the page's section once, in its view. */
function build() {
  const view = $('#view-alerts');
  if (view.childElementCount > 0) return;
  const apply = (e) => {
    e.preventDefault();
    pageState.filter = { task: $('#alerts-task').value.trim(), since: $('#alerts-since').value.trim() };
    pageState.befores = [null];
    again();
  };
  view.append(el('section', { id: 'alerts-section' },
    el('h2', {}, 'Alerts ', el('span', { className: 'muted', id: 'alerts-note' })),
    el('form', { id: 'alerts-filters', className: 'filters', autocomplete: 'off', onsubmit: apply },
      el('input', { id: 'alerts-task', type: 'search', placeholder: 'task id', 'aria-label': 'task' }),
      el('input', { id: 'alerts-since', placeholder: 'since, e.g. 2026-11-29T00:00:00Z', 'aria-label': 'since (UTC)' }),
      el('button', { id: 'alerts-apply', type: 'submit', text: 'Filter' }),
      el('button', { id: 'alerts-newer', type: 'button', text: '← Newer',
        onclick: () => { if (pageState.befores.length > 1) { pageState.befores.pop(); again(); } } }),
      el('button', { id: 'alerts-older', type: 'button', text: 'Older →',
        onclick: () => { if (pageState.next) { pageState.befores.push(pageState.next); again(); } } })),
    el('p', { id: 'alerts-empty', className: 'muted', text: 'No alert in the history for this filter.', hidden: true }),
    el('div', { className: 'table-wrap' }, el('table', { id: 'alerts' },
      el('thead', {}, el('tr', {}, ...['At (UTC)', 'Kind', 'Task', 'Window', 'Delivered to', 'Message', 'Node']
        .map((h) => el('th', { text: h })))),
      el('tbody')))));
}

async function refresh() {
  build();
  const f = pageState.filter;
  const before = pageState.befores[pageState.befores.length - 1];
  const q = '?limit=' + LIMIT + (f.task ? '&task=' + enc(f.task) : '') + (f.since ? '&since=' + enc(f.since) : '')
    + (before ? '&before=' + enc(before) : '');
  const page = await getJson('/api/alerts' + q);
  pageState.next = page.next;
  $('#alerts-note').textContent = 'page ' + pageState.befores.length + ', ' + page.alerts.length + ' alerts, newest first'
    + (f.task ? ', task ' + f.task : '') + (f.since ? ', since ' + f.since : '');
  $('#alerts-newer').disabled = pageState.befores.length <= 1;
  $('#alerts-older').disabled = !page.next;
  $('#alerts-empty').hidden = page.alerts.length > 0;
  $('#alerts tbody').replaceChildren(...page.alerts.map(alertRow));
}

/** The page, as app.js registers it: shown at #/alerts. */
export const alertsPage = { view: 'alerts', title: 'Alerts', refresh };

// The dashboard's window search (#/search?status=&from=&to=&task=&by=&order=): windows across tasks by
// status and a time range, of their start or of their last change, page by page, read from GET /api/windows
// (the instance table, by its indexes). The query lives in the address, so a search can be shared and
// reloaded. An ES module of the dashboard (app.js); its view is built here, so index.html holds none of it.

import { millisText } from './charts.js';
import { $, STATUSES, el, enc, getJson, say, shown, state, taskHref, windowHref } from './common.js';

const PAGE_SIZE = 50;
/** The query parameters the search takes, as GET /api/windows takes them. */
const FIELDS = ['task', 'status', 'by', 'from', 'to', 'order'];

function build() {
  const form = el('form', { id: 'search-form', className: 'actions', autocomplete: 'off', onsubmit: submit },
    el('input', { id: 'search-task', placeholder: 'task (any)', 'aria-label': 'task' }),
    el('select', { id: 'search-status', 'aria-label': 'status' }, el('option', { value: '', text: 'any status' }),
      ...STATUSES.concat(['FAILED', 'TIMED_OUT', 'INTERRUPTED']).map((s) => el('option', { value: s, text: s }))),
    el('select', { id: 'search-by', 'aria-label': 'time of', onchange: byChanged },
      el('option', { value: '', text: 'by window start' }), el('option', { value: 'updated', text: 'by last change' })),
    el('input', { id: 'search-from', placeholder: 'from, e.g. 2026-11-28T00:00:00Z', 'aria-label': 'from (inclusive)' }),
    el('input', { id: 'search-to', placeholder: 'to, e.g. 2026-11-29T00:00:00Z', 'aria-label': 'to (exclusive)' }),
    el('select', { id: 'search-order', 'aria-label': 'order' },
      el('option', { value: 'desc', text: 'newest first' }), el('option', { value: 'asc', text: 'oldest first' })),
    el('button', { id: 'search-go', type: 'submit', className: 'primary', text: 'Search' }));
  const view = el('div', { id: 'view-search', className: 'view', hidden: true },
    el('nav', { className: 'crumbs' }, el('a', { href: '#/', text: 'Tasks' }), ' › Search windows'),
    el('section', { id: 'search-section' },
      el('h2', {}, 'Search windows ', el('span', { className: 'muted', id: 'search-note' })),
      form,
      el('div', { className: 'actions' },
        el('button', { id: 'search-newer', type: 'button', text: '← Newer page', onclick: newer }),
        el('button', { id: 'search-older', type: 'button', text: 'Next page →', onclick: older })),
      el('div', { className: 'table-wrap' }, el('table', { id: 'search-results' },
        el('thead', {}, el('tr', {}, ...['Task', 'Window', 'Status', 'Run', 'Attempt', 'Start (UTC)', 'Last change (UTC)',
          'Run time', 'Reason / summary'].map((h) => el('th', { text: h })))),
        el('tbody')))));
  $('main').append(view);
  const link = el('a', { id: 'search-link', href: '#/search', text: 'Search windows' });
  $('header nav.pages').append(' ', link);
}

/** By last change needs both bounds (at most 31 days apart): empty ones become the last 24 hours, by this browser's clock. */
function byChanged() {
  if ($('#search-by').value !== 'updated') return;
  const now = Date.now();
  const iso = (t) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');
  if (!$('#search-from').value.trim()) $('#search-from').value = iso(now - 24 * 3600 * 1000);
  if (!$('#search-to').value.trim()) $('#search-to').value = iso(now + 60 * 1000);
}

/** The search's query from the address (#/search?...), only the parameters it takes. */
function query(text) {
  const p = new URLSearchParams(text || '');
  const q = {};
  for (const f of FIELDS) {
    const v = (p.get(f) || '').trim();
    if (v) q[f] = v;
  }
  if (!q.order) q.order = 'desc';
  return q;
}

/** A new search (the address changed): the form shows its query and paging starts again. */
export function showSearch(text) {
  const q = query(text);
  $('#search-task').value = q.task || '';
  $('#search-status').value = q.status || '';
  $('#search-by').value = q.by || '';
  $('#search-from').value = q.from || '';
  $('#search-to').value = q.to || '';
  $('#search-order').value = q.order;
  state.search = { q, pages: [null], next: null };
  document.title = 'Search windows · Almanac';
}

function submit(e) {
  e.preventDefault();
  const p = new URLSearchParams();
  const values = { task: $('#search-task').value, status: $('#search-status').value, by: $('#search-by').value,
    from: $('#search-from').value, to: $('#search-to').value, order: $('#search-order').value };
  for (const f of FIELDS) if (values[f].trim()) p.set(f, values[f].trim());
  const hash = '#/search?' + p.toString();
  if (location.hash === hash) {
    showSearch(p.toString());
    refreshSearch();
  } else {
    location.hash = hash;
  }
}

function older() {
  const s = state.search;
  if (s && s.next) {
    s.pages.push(s.next);
    refreshSearch();
  }
}

function newer() {
  const s = state.search;
  if (s && s.pages.length > 1) {
    s.pages.pop();
    refreshSearch();
  }
}

/** Reads the current page of the search and shows it; a refused query is said with its field and value. */
export async function refreshSearch() {
  const s = state.search;
  if (!s) return;
  const after = s.pages[s.pages.length - 1];
  const params = Object.entries(s.q).map(([k, v]) => k + '=' + enc(v));
  params.push('limit=' + PAGE_SIZE);
  if (after) params.push('after=' + enc(after));
  let page;
  try {
    page = await getJson('/api/windows?' + params.join('&'));
  } catch (e) {
    if (e.status !== 400) throw e;
    say('Search refused: ' + e.message, 'error');
    $('#search-results tbody').replaceChildren();
    $('#search-note').textContent = 'no result: the query was refused';
    $('#search-results').dataset.count = '0';
    return;
  }
  if (state.search !== s) return; // another search started meanwhile
  s.next = page.next;
  const byUpdated = s.q.by === 'updated';
  $('#search-note').textContent = 'page ' + s.pages.length + ', ' + page.windows.length + ' windows'
    + (page.next ? ' (more follow)' : '') + ', by ' + (byUpdated ? 'last change' : 'window start') + ', '
    + (s.q.order === 'asc' ? 'oldest' : 'newest') + ' first';
  $('#search-newer').disabled = s.pages.length <= 1;
  $('#search-older').disabled = !page.next;
  $('#search-results').dataset.count = String(page.windows.length);
  $('#search-results tbody').replaceChildren(...page.windows.map((w) => el('tr', { dataset: { task: w.task, window: w.window,
    status: w.status } },
  el('td', {}, el('a', { href: taskHref(w.task), text: w.task })),
  el('td', { className: 'time' }, el('a', { href: windowHref(w.task, w.window), text: w.window })),
  el('td', {}, el('span', { className: 'status st-' + w.status, text: w.status })),
  el('td', { text: w.runKind || '' }),
  el('td', { text: w.attempt }),
  el('td', { className: 'time', text: shown(w.start) }),
  el('td', { className: 'time', text: shown(w.updatedAt) }),
  el('td', { className: 'time', text: millisText(w.runMillis) }),
  el('td', { className: 'reason', text: w.reason || w.summary || '' }))));
}

/** Builds the view and its link (before the first route). */
export function initSearch() {
  state.search = null;
  build();
}

// Almanac's dashboard: reads and acts through the node's HTTP API only (docs/http-api.md).
// No framework and no build step; every value from the API is put into the page as text.
'use strict';

const TOKEN_KEY = 'almanac.token';
const REFRESH_MS = 5000;
const MAX_COLUMNS = 40;
const MAX_USAGE_TASKS = 100;
const STATUSES = ['SUCCEEDED', 'RUNNING', 'PENDING', 'WAITING', 'RETRY_WAIT', 'SKIPPED', 'MISSED', 'FINAL_FAILED', 'CANCELLED',
  'RESOLVED'];

const state = { selected: null, resolving: null, queue: [], timer: null };

// ---- small helpers ---------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'className') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.substring(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const $ = (sel) => document.querySelector(sel);
const enc = (s) => encodeURIComponent(s);
/** "2026-11-30T08:00:00+08:00" -> "2026-11-30 08:00:00+08:00" */
const shown = (iso) => (iso ? String(iso).replace('T', ' ').replace(/\.\d+/, '') : '–');

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

function say(text, kind) {
  const m = $('#message');
  m.textContent = text;
  m.className = 'message ' + (kind || 'ok');
  m.hidden = false;
}

/** A problem+json answer (or any error answer) in words: "Refused (409): detail". */
async function problemText(res) {
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON */ }
  const title = body && body.title ? body.title : res.statusText || 'Error';
  const detail = body && body.detail ? body.detail : '';
  let text = title + ' (' + res.status + ')' + (detail ? ': ' + detail : '');
  // a problem may name a field without a value (a missing header, a missing body field): name it alone
  if (body && body.field) {
    const hasValue = body.value !== undefined && body.value !== null;
    text += ' [field ' + body.field + (hasValue ? ' = ' + JSON.stringify(body.value) : '') + ']';
  }
  if (res.status === 401) text += ' (enter the node\'s token above)';
  if (res.status === 403 && body && body.title === 'Forbidden') text += ' (enter a token of role operate above)';
  return text;
}

async function getJson(path) {
  // the token, when entered, goes on reads too: a node with almanac.http.read-requires-token needs it
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  const res = await fetch(path, { headers, cache: 'no-store' });
  if (!res.ok) throw new Error(await problemText(res));
  return res.json();
}

/** A mutating call with the bearer token; the outcome (or the problem) is said in the page. */
async function post(path, body, doneText) {
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers, body: body === undefined ? null : JSON.stringify(body) });
  } catch (e) {
    say('Not sent: the node cannot be reached (' + e.message + ')', 'error');
    return null;
  }
  if (!res.ok) {
    say('Refused: ' + await problemText(res), 'error');
    return null;
  }
  const answer = await res.json();
  say(doneText(answer), 'ok');
  await refresh();
  return answer;
}

// ---- rendering -------------------------------------------------------------------------------

function renderHealth(h) {
  const s = $('#health');
  s.textContent = h.ready ? 'ready' : (h.live ? 'not ready' : 'not live');
  s.className = 'health ' + (h.ready ? 'ok' : 'bad');
  s.title = (h.checks || []).map((c) => (c.ok ? '✓ ' : '✗ ') + c.name + ': ' + c.detail).join('\n');
}

/** A window's usage (its attempts' sums) in words: "1200 in / 340 out tokens, cost 0.0215, model gpt-4o". */
function usageText(u) {
  return u.tokensIn + ' in / ' + u.tokensOut + ' out tokens, cost ' + u.cost + (u.model ? ', model ' + u.model : '');
}

/** A pool wait in words, as the marker's tooltip: "waiting for pool openai: PAUSED until 2026-...Z". */
function poolWaitText(p) {
  return 'waiting for pool ' + p.pool + ': ' + p.reason + (p.until ? ' until ' + p.until : '');
}

/**
 * A task's usage today (GET /api/tasks/{id}/usage) and the model of its latest window that named one:
 * a cell of the task row, '–' when nothing was reported today.
 */
function usageCell(t, usage, windows) {
  const latest = windows.filter((w) => w.task === t.id && w.usage && w.usage.model)
    .sort((a, b) => (a.start < b.start ? 1 : -1))[0];
  const model = latest ? latest.usage.model : null;
  if (!usage || (usage.attempts === 0 && !usage.limit)) {
    return el('td', { className: 'usage', text: '–' });
  }
  const text = usage.tokensIn + ' in / ' + usage.tokensOut + ' out, cost ' + usage.cost
    + (usage.limit ? ' of ' + usage.limit : '') + (model ? ', ' + model : '') + (usage.exhausted ? ' (budget spent)' : '');
  return el('td', {
    className: 'usage' + (usage.exhausted ? ' exhausted' : ''), text,
    title: 'today (' + usage.day + ', ' + usage.zone + '): ' + usage.attempts + ' attempts reported usage',
    dataset: { tokensIn: usage.tokensIn, tokensOut: usage.tokensOut, cost: usage.cost, model: model || '' },
  });
}

function renderTasks(tasks, usages, windows) {
  const body = $('#tasks tbody');
  body.replaceChildren(...tasks.map((t) => el('tr', { dataset: { task: t.id } },
    el('td', { text: t.id }),
    el('td', { text: t.schedule }),
    el('td', { text: t.window }),
    el('td', { text: t.removed ? 'removed' : t.paused ? 'paused' : 'active' }),
    el('td', { className: 'time next-local', text: t.nextFireLocal ? shown(t.nextFireLocal) + ' ' + t.zone : 'never' }),
    el('td', { className: 'time next-utc', text: t.nextFireUtc ? shown(t.nextFireUtc) : 'never' }),
    el('td', { text: t.interventionQueue }),
    usageCell(t, usages.get(t.id), windows))));
}

/** A window's coalesced events in words, or '' when it has none. */
function eventsText(w) {
  const e = w.events;
  if (!e) return '';
  const all = e.received + e.duplicates;
  return all + (all === 1 ? ' event' : ' events') + ' (' + e.received + ' distinct, ' + e.duplicates + ' duplicates)'
    + (e.firstId ? ', first id ' + e.firstId + ', last id ' + e.lastId : '');
}

/** The part of a SKIPPED or MISSED window's reason shown in its cell: its leading code; a WAITING one's deadline. */
function reasonHead(w) {
  if (w.status === 'WAITING') return w.waitUntil ? 'until ' + shown(w.waitUntil) : 'waiting';
  const r = w.reason || '';
  const colon = r.indexOf(':');
  return colon > 0 ? r.substring(0, colon) : r;
}

function renderGrid(tasks, windows) {
  const starts = [...new Set(windows.map((w) => w.start))].sort();
  const columns = starts.slice(-MAX_COLUMNS);
  $('#grid-note').textContent = windows.length + ' windows' + (starts.length > columns.length
    ? ', the latest ' + columns.length + ' start times shown' : '') + '; columns by window start (UTC); click a cell';
  const byKey = new Map();
  for (const w of windows) byKey.set(w.task + '\u0000' + w.start, w);
  const head = el('tr', {}, el('th', { text: 'task' }),
    ...columns.map((c) => el('th', { className: 'col', title: c + ' (UTC)\n' + new Date(c).toString(), text: shown(c) })));
  $('#grid thead').replaceChildren(head);
  const ids = tasks.map((t) => t.id);
  for (const w of windows) if (!ids.includes(w.task)) ids.push(w.task);
  $('#grid tbody').replaceChildren(...ids.map((id) => el('tr', { dataset: { task: id } },
    el('td', { className: 'task', text: id }),
    ...columns.map((c) => {
      const w = byKey.get(id + '\u0000' + c);
      return el('td', {}, w ? cell(w) : el('span', { className: 'empty' }));
    }))));
}

function cell(w) {
  // a PENDING window that waits for a resource pool shows it as a marker of its own (docs/pools.md)
  const explained = w.status === 'SKIPPED' || w.status === 'MISSED' || w.status === 'WAITING';
  const title = w.task + ' ' + w.window + ': ' + w.status + (w.attempt ? ', attempt ' + w.attempt : '')
    + (w.reason ? '\n' + w.reason : w.summary ? '\n' + w.summary : '')
    + (w.status === 'WAITING' && w.waitUntil ? '\nuntil ' + w.waitUntil + ' (UTC)' : '')
    + (w.events ? '\n' + eventsText(w) : '')
    + (w.deadlineMissedAt ? '\ndeadline missed (recorded ' + w.deadlineMissedAt + ' UTC)' : '')
    + (w.usage ? '\nusage: ' + usageText(w.usage) : '');
  const selected = state.selected && state.selected.task === w.task && state.selected.window === w.window;
  return el('span', {
    className: 'cell st-' + w.status + (selected ? ' selected' : '') + (w.deadlineMissedAt ? ' late' : ''), title,
    tabindex: '0', role: 'button', dataset: { task: w.task, window: w.window, status: w.status },
    onclick: () => select(w), onkeydown: (e) => { if (e.key === 'Enter') select(w); },
  }, el('span', { className: 'st', text: w.status.replace('_', ' ') }),
  w.deadlineMissedAt ? el('span', { className: 'late-mark', text: 'LATE', title: 'deadline missed (recorded '
    + w.deadlineMissedAt + ' UTC)' }) : null,
  w.poolWait ? el('span', { className: 'pool-mark', text: 'POOL ' + w.poolWait.pool, title: poolWaitText(w.poolWait),
    dataset: { pool: w.poolWait.pool, reason: w.poolWait.reason } }) : null,
  explained ? el('span', { className: 'why', text: reasonHead(w) }) : null);
}

function renderQueue(windows) {
  $('#queue-empty').hidden = windows.length > 0;
  $('#queue').hidden = windows.length === 0;
  $('#queue tbody').replaceChildren(...windows.map((w) => {
    const key = w.task + '\u0000' + w.window;
    const actions = el('td', { className: 'actions' });
    if (state.resolving === key) {
      const note = el('input', { className: 'note', placeholder: 'note: what was done (required)', 'aria-required': 'true' });
      actions.append(el('form', {
        onsubmit: (e) => {
          e.preventDefault();
          if (!note.value.trim()) { say('A note is needed to resolve a window.', 'error'); return; }
          state.resolving = null;
          post(windowPath(w) + '/resolve', { note: note.value.trim() },
            (a) => 'Resolved ' + w.task + ' ' + w.window + ': now ' + a.status);
        },
      }, note, el('button', { type: 'submit', className: 'primary confirm-resolve', text: 'Resolve' }),
      el('button', { type: 'button', className: 'cancel-resolve', text: 'Cancel',
        onclick: () => { state.resolving = null; renderQueue(state.queue); } })));
      setTimeout(() => note.focus(), 0);
    } else {
      actions.append(
        el('button', { type: 'button', className: 'retry primary', text: 'Retry',
          onclick: () => post(windowPath(w) + '/retry', undefined,
            (a) => 'Retry of ' + w.task + ' ' + w.window + ' accepted: now ' + a.status) }),
        ' ',
        el('button', { type: 'button', className: 'resolve', text: 'Resolve…',
          onclick: () => { state.resolving = key; renderQueue(state.queue); } }));
    }
    return el('tr', { dataset: { task: w.task, window: w.window } },
      el('td', { text: w.task }), el('td', { text: w.window }), el('td', { className: 'attempt', text: w.attempt }),
      el('td', { className: 'time', text: shown(w.updatedAt) }), el('td', { className: 'reason', text: w.reason || '' }),
      actions);
  }));
}

function windowPath(w) {
  return '/api/tasks/' + enc(w.task) + '/windows/' + enc(w.window);
}

// ---- the detail panel: a window, its why and its timeline ---------------------------------------

async function select(w) {
  state.selected = { task: w.task, window: w.window };
  document.querySelectorAll('.cell.selected').forEach((c) => c.classList.remove('selected'));
  document.querySelectorAll('.cell').forEach((c) => {
    if (c.dataset.task === w.task && c.dataset.window === w.window) c.classList.add('selected');
  });
  const panel = $('#detail');
  panel.hidden = false;
  panel.dataset.task = w.task;
  panel.dataset.window = w.window;
  $('#detail-title').textContent = w.task + ' ' + w.window;
  const fields = [['status', w.status], ['reason', w.reason], ['summary', w.summary], ['run kind', w.runKind],
    ['attempt', w.attempt + ' (retries ' + w.retries + ' of ' + w.maxRetries + ')'],
    ['window', shown(w.start) + ' – ' + shown(w.end) + ' (UTC)'], ['due', shown(w.dueAt)],
    ['wait until', w.waitUntil ? shown(w.waitUntil) + ' (UTC)' : null], ['events', eventsText(w)],
    ['deadline missed', w.deadlineMissedAt ? shown(w.deadlineMissedAt) + ' (UTC)' : null],
    ['pool wait', w.poolWait ? poolWaitText(w.poolWait) : null], ['usage', w.usage ? usageText(w.usage) : null],
    ['finished', shown(w.finishedAt)], ['updated', shown(w.updatedAt)]];
  $('#detail-fields').replaceChildren(...fields.filter(([, v]) => v !== null && v !== undefined && v !== '')
    .flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { className: 'f-' + k.replace(' ', '-'), text: v })]));
  $('#why').replaceChildren(el('p', { className: 'muted', text: 'loading…' }));
  $('#timeline').replaceChildren(el('p', { className: 'muted', text: 'loading…' }));
  const [why, timeline] = await Promise.allSettled([getJson(windowPath(w) + '/why'), getJson(windowPath(w) + '/timeline')]);
  if (!state.selected || state.selected.task !== w.task || state.selected.window !== w.window) return;
  if (why.status === 'fulfilled') {
    const y = why.value;
    $('#why').replaceChildren(el('p', { className: 'verdict', text: y.verdict }),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', { text: 'at (local)' }), el('th', { text: 'at (UTC)' }),
        el('th', { text: 'what happened' }))),
      el('tbody', {}, ...(y.steps || []).map((s) => el('tr', {}, el('td', { className: 'time', text: shown(s.atLocal) }),
        el('td', { className: 'time', text: shown(s.atUtc) }), el('td', { text: s.text }))))));
  } else {
    $('#why').replaceChildren(el('p', { className: 'muted', text: 'not available: ' + why.reason.message }));
  }
  if (timeline.status === 'fulfilled') {
    $('#timeline').replaceChildren(el('table', {},
      el('thead', {}, el('tr', {}, ...['#', 'event', 'attempt', 'at (local)', 'at (UTC)', 'detail']
        .map((h) => el('th', { text: h })))),
      el('tbody', {}, ...(timeline.value.events || []).map((e) => el('tr', {},
        el('td', { text: e.seq }), el('td', { text: e.event }), el('td', { text: e.attempt }),
        el('td', { className: 'time', text: shown(e.atLocal) }), el('td', { className: 'time', text: shown(e.atUtc) }),
        el('td', { text: e.detail || '' }))))));
  } else {
    $('#timeline').replaceChildren(el('p', { className: 'muted', text: 'not available: ' + timeline.reason.message }));
  }
}

// ---- loading ---------------------------------------------------------------------------------

/** The latest windows: one page, newest first (the grid shows the latest MAX_COLUMNS start times). */
async function latestWindows() {
  const r = await getJson('/api/windows?order=desc&limit=500');
  return r.windows;
}

/** Each live task's usage today, by task id (at most MAX_USAGE_TASKS asked; one that fails is left out). */
async function usagesOf(tasks) {
  const live = tasks.filter((t) => !t.removed).slice(0, MAX_USAGE_TASKS);
  const answers = await Promise.allSettled(live.map((t) => getJson('/api/tasks/' + enc(t.id) + '/usage')));
  const out = new Map();
  answers.forEach((a, i) => { if (a.status === 'fulfilled') out.set(live[i].id, a.value); });
  return out;
}

async function refresh() {
  try {
    const healthRes = fetch('/health/ready', { cache: 'no-store' }).then((r) => r.json()).catch(() => null);
    const [tasks, windows, queue, health] = await Promise.all([getJson('/api/tasks'), latestWindows(), getJson('/api/queue'),
      healthRes]);
    if (health) renderHealth(health);
    renderTasks(tasks.tasks, await usagesOf(tasks.tasks), windows);
    renderGrid(tasks.tasks, windows);
    state.queue = queue.windows;
    if (state.resolving === null) renderQueue(queue.windows);
    $('#updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    document.body.dataset.loaded = 'true';
  } catch (e) {
    say('Cannot read from the node: ' + e.message, 'error');
  }
}

function start() {
  const t = $('#token');
  t.value = token();
  t.addEventListener('input', () => sessionStorage.setItem(TOKEN_KEY, t.value.trim()));
  $('#refresh').addEventListener('click', refresh);
  $('#detail-close').addEventListener('click', () => { state.selected = null; $('#detail').hidden = true; refresh(); });
  $('#legend').replaceChildren(...STATUSES.map((s) => el('span', {}, el('i', { className: 'st-' + s }), s)));
  refresh();
  state.timer = setInterval(refresh, REFRESH_MS);
}

document.addEventListener('DOMContentLoaded', start);

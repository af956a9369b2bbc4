// Almanac's dashboard: reads and acts through the node's HTTP API only (docs/http-api.md).
// No framework and no build step (an ES module); every value from the API is put into the page as text.
// Routes (hash): #/ the task list, #/tasks/{id} a task, #/tasks/{id}/windows/{key} a window of it,
// #/search?... the window search (search.js).

import { durationChart, millisText, outcomesChart, usageChart } from './charts.js';
import {
  $, CHART_WINDOWS, GLYPH, LATEST, PAGE, REFRESH_MS, STATUSES, TOKEN_KEY, el, enc, eventsText, getJson, ms,
  poolWaitText, reasonHead, say, send, shown, state, taskHref, token, unsay, usageText, windowHref, windowPath
} from './common.js';
import { act, actOnWindow, refreshRunningWindow, showWindow } from './window.js';
import { initBulk, queueFiltered, renderQueueBulk, resetRange } from './bulk.js';
import { initSearch, refreshSearch, showSearch } from './search.js';
import { alertsPage } from './alerts.js';
import { nodesPage } from './nodes.js';

/** The pages of their own modules, each shown at #/{view} in its #view-{view}: {view, title, refresh}. */
const PAGES = [nodesPage, alertsPage];

// ---- routing ---------------------------------------------------------------------------------

function parseRoute() {
  const h = location.hash.replace(/^#/, '');
  if (h === '/search' || h.startsWith('/search?')) return { view: 'search', query: h.substring('/search?'.length) };
  const parts = h.split('/').filter((p) => p !== '');
  const page = PAGES.find((p) => p.view === parts[0]);
  if (page) return { view: page.view };
  try {
    if (parts[0] === 'tasks' && parts.length >= 2) {
      const task = decodeURIComponent(parts[1]);
      if (parts[2] === 'windows' && parts.length >= 4) {
        return { view: 'task', task, window: decodeURIComponent(parts.slice(3).join('/')) };
      }
      return { view: 'task', task, window: null };
    }
  } catch (e) { /* a malformed escape: the list */ }
  return { view: 'list' };
}

async function route() {
  const before = state.route;
  state.route = parseRoute();
  const r = state.route;
  $('#view-list').hidden = r.view !== 'list';
  $('#view-task').hidden = r.view !== 'task';
  $('#view-search').hidden = r.view !== 'search';
  if (r.view === 'search' && (before.view !== 'search' || before.query !== r.query)) showSearch(r.query);
  for (const p of PAGES) $('#view-' + p.view).hidden = r.view !== p.view;
  if (before.view !== r.view || before.task !== r.task || before.window !== r.window) {
    // another address: what was said and typed on the one before stays there
    unsay();
    closeConfirm('bulk');
    closeConfirm('window');
    state.resolving = null;
  }
  if (r.view === 'task' && (before.view !== 'task' || before.task !== r.task)) {
    state.task = null;
    state.missing = null;
    showTaskSections(false); // until the node says the task exists: no action on a task that may not
    $('#task-missing').hidden = true;
    $('#task-state').textContent = '';
    state.pages = [null];
    state.selection.clear();
    state.plan = null;
    $('#backfill-plan').replaceChildren();
    $('#backfill-confirm').hidden = true;
    resetRange();
    $('#bulk-progress').textContent = '';
    $('#task-title').textContent = r.task;
    $('#task-id').textContent = r.task;
    $('#charts').replaceChildren();
    $('#task-windows tbody').replaceChildren();
    $('#task-spec').replaceChildren();
    $('#usage-today').textContent = '';
    $('#detail').hidden = true;
  }
  if (r.view !== 'search') document.title = r.view === 'task' ? r.task + (r.window ? ' ' + r.window : '') + ' · Almanac' : 'Almanac';
  const page = PAGES.find((p) => p.view === r.view);
  if (page) document.title = page.title + ' · Almanac';
  await refresh();
  if (r.view === 'task') {
    if (r.window && state.missing !== r.task) await showWindow(r.task, r.window);
    else $('#detail').hidden = true;
  }
}

// ---- the task list ---------------------------------------------------------------------------

function renderHealth(h) {
  const s = $('#health');
  s.textContent = h.ready ? 'ready' : (h.live ? 'not ready' : 'not live');
  s.className = 'health ' + (h.ready ? 'ok' : 'bad');
  s.title = (h.checks || []).map((c) => (c.ok ? '✓ ' : '✗ ') + c.name + ': ' + c.detail).join('\n');
}

function taskState(t) {
  return t.removed ? 'removed' : t.paused ? 'paused' : 'active';
}

/** Why a task needs an operator, in words, or null: paused, FINAL_FAILED windows, windows that missed their deadline. */
function attention(t) {
  const why = [];
  if (t.paused) why.push('paused');
  const failed = (t.latest || []).filter((w) => w.status === 'FINAL_FAILED').length;
  if (t.interventionQueue > 0 || failed > 0) why.push(Math.max(t.interventionQueue, failed) + ' FINAL_FAILED');
  const late = (t.latest || []).filter((w) => w.deadlineMissedAt).length;
  if (late > 0) why.push(late + ' late');
  return why.length ? why.join(', ') : null;
}

function filtered(tasks) {
  const text = $('#filter-text').value.trim().toLowerCase();
  const status = $('#filter-status').value;
  const paused = $('#filter-paused').value;
  const needs = $('#filter-attention').checked;
  return tasks.filter((t) => (!text || t.id.toLowerCase().includes(text))
    && (!status || (status === 'NONE' ? !(t.latest && t.latest.length) : t.latest && t.latest.length && t.latest[0].status === status))
    && (!paused || (paused === 'paused') === Boolean(t.paused))
    && (!needs || attention(t) !== null));
}

function cell(w) {
  const title = w.task + ' ' + w.window + ': ' + w.status + (w.attempt ? ', attempt ' + w.attempt : '')
    + (w.reason ? '\n' + w.reason : w.summary ? '\n' + w.summary : '')
    + (w.status === 'WAITING' && w.waitUntil ? '\nuntil ' + w.waitUntil + ' (UTC)' : '')
    + (w.events ? '\n' + eventsText(w) : '')
    + (w.deadlineMissedAt ? '\ndeadline missed (recorded ' + w.deadlineMissedAt + ' UTC)' : '')
    + (w.poolWait ? '\n' + poolWaitText(w.poolWait) : '')
    + (w.usage ? '\nusage: ' + usageText(w.usage) : '');
  const r = state.route;
  const selected = r.view === 'task' && r.task === w.task && r.window === w.window;
  return el('a', {
    className: 'cell st-' + w.status + (selected ? ' selected' : '') + (w.deadlineMissedAt ? ' late' : ''), title,
    href: windowHref(w.task, w.window), dataset: { task: w.task, window: w.window, status: w.status,
      reason: w.status === 'SKIPPED' || w.status === 'MISSED' ? reasonHead(w) : undefined },
  }, el('span', { className: 'glyph', text: GLYPH[w.status] || '?' }),
  w.deadlineMissedAt ? el('span', { className: 'late-mark', text: '!', title: 'deadline missed (recorded '
    + w.deadlineMissedAt + ' UTC)' }) : null,
  w.poolWait ? el('span', { className: 'pool-mark', text: 'P', title: poolWaitText(w.poolWait),
    dataset: { pool: w.poolWait.pool, reason: w.poolWait.reason } }) : null);
}

function strip(t) {
  const latest = (t.latest || []).slice(0, LATEST).reverse(); // oldest left, newest right
  const pad = [];
  for (let i = latest.length; i < LATEST; i++) pad.push(el('span', { className: 'empty' }));
  return el('div', { className: 'strip' }, ...pad, ...latest.map(cell));
}

function renderTasks() {
  const shownTasks = filtered(state.tasks);
  $('#tasks-note').textContent = shownTasks.length + ' of ' + state.tasks.length
    + '; each task\'s own latest ' + LATEST + ' windows by start, newest right';
  $('#tasks tbody').replaceChildren(...shownTasks.map((t) => {
    const why = attention(t);
    return el('tr', { dataset: { task: t.id, state: taskState(t), attention: why || '' } },
      el('td', { className: 'task' }, el('a', { href: taskHref(t.id), className: 'task-link', text: t.id }),
        el('span', { className: 'badge ' + taskState(t), text: taskState(t) }),
        why ? el('span', { className: 'attention', text: why }) : null),
      el('td', { className: 'sched' }, el('span', { className: 'schedule', text: t.schedule + ' · ' + t.window }),
        el('span', { className: 'time next-local', text: t.nextFireLocal ? shown(t.nextFireLocal) + ' ' + t.zone : 'never' }),
        el('span', { className: 'time next-utc', text: t.nextFireUtc ? shown(t.nextFireUtc) : 'never' })),
      el('td', { className: 'queue-count', text: t.interventionQueue }),
      el('td', { className: 'strip-cell' }, strip(t)));
  }));
  if (state.firstRender === null) {
    state.firstRender = performance.now();
    document.body.dataset.firstRenderMs = String(Math.round(state.firstRender));
  }
}

function renderQueue(all) {
  renderQueueBulk(all);
  const windows = queueFiltered(all); // the task the queue's filter names (bulk.js), or every task
  $('#queue-empty').hidden = windows.length > 0;
  $('#queue').hidden = windows.length === 0;
  $('#queue tbody').replaceChildren(...windows.map((w) => {
    const key = w.task + '\u0000' + w.window;
    const actions = el('td', { className: 'row-actions' });
    if (state.resolving === key) {
      const note = el('input', { className: 'note', placeholder: 'note: what was done (required)', 'aria-required': 'true' });
      actions.append(el('form', {
        onsubmit: (e) => {
          e.preventDefault();
          if (!note.value.trim()) { say('A note is needed to resolve a window.', 'error'); return; }
          state.resolving = null;
          actOnWindow(w.task, w.window, w.version, 'resolve', { note: note.value.trim() },
            (a) => 'Resolved ' + w.task + ' ' + w.window + ': now ' + a.status);
        },
      }, note, el('button', { type: 'submit', className: 'primary confirm-resolve', text: 'Resolve' }),
      el('button', { type: 'button', className: 'cancel-resolve', text: 'Cancel',
        onclick: () => { state.resolving = null; renderQueue(state.queue); } })));
      setTimeout(() => note.focus(), 0);
    } else {
      actions.append(
        el('button', { type: 'button', className: 'retry primary', text: 'Retry',
          onclick: () => actOnWindow(w.task, w.window, w.version, 'retry', undefined,
            (a) => 'Retry of ' + w.task + ' ' + w.window + ' accepted: now ' + a.status) }),
        ' ',
        el('button', { type: 'button', className: 'resolve', text: 'Resolve…',
          onclick: () => { state.resolving = key; renderQueue(state.queue); } }));
    }
    return el('tr', { dataset: { task: w.task, window: w.window, version: w.version } },
      el('td', {}, el('a', { href: taskHref(w.task), text: w.task })),
      el('td', {}, el('a', { href: windowHref(w.task, w.window), text: w.window })),
      el('td', { className: 'attempt', text: w.attempt }),
      el('td', { className: 'time', text: shown(w.updatedAt) }), el('td', { className: 'reason', text: w.reason || '' }),
      actions);
  }));
}

async function refreshList() {
  const [tasks, queue] = await Promise.all([getJson('/api/tasks?latest=' + LATEST), getJson('/api/queue')]);
  state.tasks = tasks.tasks;
  state.queue = queue.windows;
  renderTasks();
  if (state.resolving === null) renderQueue(queue.windows);
}

// ---- the task page -----------------------------------------------------------------------------

/** A duration in ISO-8601 (PT5M) or ms in words. */
function isoText(d) {
  return d ? String(d).replace(/^PT/, '').toLowerCase() : null;
}

function retryText(r) {
  if (!r) return null;
  if (r.maxRetries === 0) return 'no retries: a failure is final';
  let how = r.backoff;
  if (r.backoff === 'EXPONENTIAL') {
    how = 'exponential from ' + isoText(r.initialDelay) + ' ×' + r.multiplier + ' up to ' + isoText(r.maxDelay);
  } else if (r.backoff === 'DELAYS' && r.delays) {
    how = 'after ' + r.delays.map(isoText).join(', ');
  } else if (r.backoff === 'IMMEDIATE') {
    how = 'at once';
  }
  return 'up to ' + r.maxRetries + ' retries, ' + how + (r.span ? ', within ' + isoText(r.span) + ' of the window\'s start' : '');
}

function catchUpText(c) {
  if (!c) return null;
  const mode = c.mode === 'NONE' ? 'missed windows are recorded MISSED, not run' : 'missed windows are run (' + c.mode + ')';
  return mode + '; horizon ' + isoText(c.horizon) + (c.span ? ', within ' + isoText(c.span) : '');
}

/** The task page's sections (its state and actions, backfill, charts, windows), shown or not. */
function showTaskSections(shown) {
  for (const id of ['#task-section', '#backfill-section', '#range-section', '#charts-section', '#windows-section']) {
    $(id).hidden = !shown;
  }
}

/** A task the node does not have (404), or an id that is not one (400): said so, with no action. */
function renderMissing(id, error) {
  state.missing = id;
  state.task = null;
  showTaskSections(false);
  $('#detail').hidden = true;
  closeConfirm('bulk');
  closeConfirm('window');
  $('#task-state').textContent = '';
  $('#task-missing-text').textContent = (error.status === 400 ? '"' + id + '" is not a task id' : 'The node has no task "'
    + id + '"') + ' (' + error.message + ').';
  $('#task-missing').hidden = false;
  document.title = 'no such task · Almanac';
}

function renderTaskSpec(t) {
  state.missing = null;
  $('#task-missing').hidden = true;
  showTaskSections(true);
  $('#task-state').textContent = taskState(t);
  $('#task-state').className = 'badge ' + taskState(t);
  $('#task-pause').hidden = Boolean(t.paused);
  $('#task-resume').hidden = !t.paused;
  const schedule = t.schedule + (t.alsoCrons ? ' and ' + t.alsoCrons.join(', ') : '') + ' (' + t.zone + ')'
    + (t.from ? ', from ' + t.from : '') + (t.until ? ', until ' + t.until : '')
    + (t.calendars ? ', except ' + t.calendars.join(', ') : '') + (t.jitterMillis ? ', jitter ' + millisText(t.jitterMillis) : '');
  const fields = [
    ['schedule', schedule], ['window', t.window], ['zone', t.zone],
    ['next fire (local)', t.nextFireLocal ? shown(t.nextFireLocal) + ' ' + t.zone : 'never'],
    ['next fire (UTC)', t.nextFireUtc ? shown(t.nextFireUtc) : 'never'],
    ['overlap', t.overlap ? t.overlap + (t.overlap === 'SKIP' ? ': a window due while the previous runs is skipped' : '') : null],
    ['retries', retryText(t.retry)], ['catch-up', catchUpText(t.catchUp)],
    ['pools', t.pools && t.pools.length ? t.pools.join(', ') : 'none'],
    ['deadline', t.deadlineMillis ? millisText(t.deadlineMillis) + ' after due' : 'none'],
    ['budget', t.budgetPerDay ? t.budgetPerDay + ' per day (' + t.zone + ')' : 'none'],
    ['lease', t.leaseMillis ? millisText(t.leaseMillis) : null], ['p99 duration', t.p99Millis ? millisText(t.p99Millis) : null],
    ['queue', String(t.interventionQueue) + ' FINAL_FAILED'], ['hot windows', String(t.hotWindows)],
  ];
  $('#task-spec').replaceChildren(...fields.filter(([, v]) => v !== null && v !== undefined)
    .flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { className: 'f-' + fieldClass(k), text: v })]));
}

/** "next fire (UTC)" -> "next-fire-utc" */
function fieldClass(k) {
  return k.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function renderUsageToday(u) {
  const p = $('#usage-today');
  if (!u || (u.attempts === 0 && !u.limit)) {
    p.textContent = 'Usage today: –';
    p.dataset.tokensIn = '';
    p.dataset.cost = '';
    return;
  }
  const model = state.windows.concat(state.chartWindows || []).find((w) => w.usage && w.usage.model);
  p.textContent = 'Usage today (' + u.day + ', ' + u.zone + '): ' + u.tokensIn + ' in / ' + u.tokensOut + ' out, cost ' + u.cost
    + (u.limit ? ' of ' + u.limit : '') + (model ? ', ' + model.usage.model : '') + (u.exhausted ? ' (budget spent)' : '');
  Object.assign(p.dataset, { tokensIn: u.tokensIn, tokensOut: u.tokensOut, cost: u.cost, model: model ? model.usage.model : '' });
}

function renderCharts(t, windows) {
  const asc = [...windows].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  // the run time of the last attempt only (runMillis: not its pool or queue wait, not a later resolve or cancel)
  const durations = asc.filter((w) => w.runMillis !== null && w.runMillis !== undefined)
    .map((w) => ({ label: shown(w.window), value: w.runMillis, status: w.status }));
  // the lag of fresh fires only (lagMillis: a backfill, catch-up, retry or manual run is late by design)
  const lags = asc.filter((w) => w.lagMillis !== null && w.lagMillis !== undefined)
    .map((w) => ({ label: shown(w.window), value: w.lagMillis, status: w.status }));
  const ran = asc.filter((w) => w.startedAt).length;
  const notFresh = asc.filter((w) => w.startedAt && w.runKind && w.runKind !== 'FIRST').length;
  const byDay = new Map();
  const usage = new Map();
  for (const w of asc) {
    const day = String(w.start).substring(0, 10);
    if (!byDay.has(day)) byDay.set(day, {});
    const c = byDay.get(day);
    c[w.status] = (c[w.status] || 0) + 1;
    if (w.usage) {
      const u = usage.get(day) || { day, cost: 0, tokensIn: 0, tokensOut: 0 };
      u.cost += Number(w.usage.cost || 0);
      u.tokensIn += w.usage.tokensIn;
      u.tokensOut += w.usage.tokensOut;
      usage.set(day, u);
    }
  }
  const days = [...byDay.entries()].map(([day, counts]) => ({ day, counts }));
  const charts = [
    durationChart('Run time (attempt started → its outcome)', 'duration', durations, t.leaseMillis, 'run time',
      ran > durations.length ? (ran - durations.length) + ' running, resolved or cancelled left out' : null),
    durationChart('Lag of fresh fires (due → started)', 'lag', lags, null, 'lag',
      notFresh ? notFresh + ' backfills, catch-ups, retries and manual runs left out' : null),
    outcomesChart('Outcomes per day', days, STATUSES),
  ];
  if (usage.size) {
    charts.push(usageChart('Usage per day (cost)', [...usage.values()].map((u) => ({ ...u,
      costText: u.cost.toFixed(6).replace(/0+$/, '').replace(/\.$/, '') }))));
  }
  $('#charts').replaceChildren(...charts);
  $('#charts-note').textContent = 'from the latest ' + windows.length + ' windows';
}

function renderWindows() {
  const rows = state.windows;
  const page = state.pages.length;
  $('#windows-note').textContent = 'page ' + page + ', ' + rows.length + ' windows, newest first';
  $('#windows-newer').disabled = state.pages.length <= 1;
  $('#windows-older').disabled = !state.next;
  $('#task-windows tbody').replaceChildren(...rows.map((w) => {
    const box = el('input', { type: 'checkbox', className: 'pick', 'aria-label': 'select ' + w.window,
      dataset: { window: w.window }, onchange: (e) => {
        if (e.target.checked) state.selection.add(w.window); else state.selection.delete(w.window);
        selectionChanged();
        renderSelection();
      } });
    box.checked = state.selection.has(w.window);
    const selected = state.route.window === w.window;
    return el('tr', { dataset: { task: w.task, window: w.window, status: w.status }, className: selected ? 'selected' : null },
      el('td', {}, box),
      el('td', { className: 'task' }, el('a', { href: windowHref(w.task, w.window), text: w.window })),
      el('td', {}, el('span', { className: 'status st-' + w.status, text: w.status }),
        w.deadlineMissedAt ? el('span', { className: 'late-mark', text: 'LATE' }) : null,
        w.poolWait ? el('span', { className: 'pool-mark', text: 'POOL ' + w.poolWait.pool, title: poolWaitText(w.poolWait) }) : null),
      el('td', { text: w.attempt }),
      el('td', { className: 'time', text: shown(w.dueAt) }),
      el('td', { className: 'time', text: millisText(w.runMillis) }),
      el('td', { className: 'time', text: millisText(w.dueAt && w.startedAt ? Math.max(0, ms(w.dueAt, w.startedAt)) : null) }),
      el('td', { className: 'reason', text: w.reason || w.summary || '' }));
  }));
  renderSelection();
}

function renderSelection() {
  const n = state.selection.size;
  $('#bulk-count').textContent = n + ' selected';
  for (const b of ['#bulk-retry', '#bulk-resolve', '#bulk-cancel']) $(b).disabled = n === 0 || state.busy;
  const all = state.windows.length > 0 && state.windows.every((w) => state.selection.has(w.window));
  $('#select-all').checked = all;
}

async function refreshTask(id) {
  const status = $('#windows-status').value;
  const after = state.pages[state.pages.length - 1];
  const q = '/api/windows?task=' + enc(id) + '&order=desc&limit=' + PAGE + (status ? '&status=' + enc(status) : '')
    + (after ? '&after=' + enc(after) : '');
  const [found, paged, charted, usage] = await Promise.allSettled([getJson('/api/tasks/' + enc(id)), getJson(q),
    getJson('/api/windows?task=' + enc(id) + '&order=desc&limit=' + CHART_WINDOWS),
    getJson('/api/tasks/' + enc(id) + '/usage').catch(() => null)]);
  if (state.route.view !== 'task' || state.route.task !== id) return;
  if (found.status === 'rejected') {
    if (found.reason.status === 404 || found.reason.status === 400) {
      renderMissing(id, found.reason);
      return;
    }
    throw found.reason;
  }
  for (const r of [paged, charted]) if (r.status === 'rejected') throw r.reason;
  const task = found.value;
  const page = paged.value;
  const chart = charted.value;
  state.task = task;
  state.windows = page.windows;
  state.next = page.next;
  state.chartWindows = chart.windows;
  renderTaskSpec(task);
  renderWindows();
  renderCharts(task, chart.windows);
  renderUsageToday(usage.value);
}

// ---- actions on the task page --------------------------------------------------------------------

function currentTask() {
  return state.route.view === 'task' ? state.route.task : null;
}

async function backfillDryRun(e) {
  e.preventDefault();
  const task = currentTask();
  const from = $('#backfill-from').value.trim();
  const to = $('#backfill-to').value.trim();
  $('#backfill-confirm').hidden = true;
  state.plan = null;
  const r = await send('/api/tasks/' + enc(task) + '/backfill', { from, to, dryRun: true });
  if (!r.ok) {
    say('Refused: ' + r.error, 'error');
    $('#backfill-plan').replaceChildren();
    return;
  }
  const a = r.answer;
  const counts = {};
  a.windows.forEach((w) => { counts[w.decision] = (counts[w.decision] || 0) + 1; });
  const summary = a.windows.length + ' windows in ' + a.range + ': '
    + (Object.entries(counts).map(([d, n]) => n + ' ' + d).join(', ') || 'none');
  $('#backfill-plan').replaceChildren(el('p', { className: 'plan-summary', text: 'Dry run (nothing changed): ' + summary }),
    el('div', { className: 'table-wrap' }, el('table', { id: 'plan' },
      el('thead', {}, el('tr', {}, el('th', { text: 'window' }), el('th', { text: 'decision' }), el('th', { text: 'reason' }))),
      el('tbody', {}, ...a.windows.map((w) => el('tr', { dataset: { window: w.window, decision: w.decision } },
        el('td', { className: 'time', text: w.window }), el('td', { text: w.decision }), el('td', { text: w.reason || '' })))))));
  state.plan = { task, from, to };
  $('#backfill-confirm').hidden = a.windows.length === 0;
}

async function backfillConfirm() {
  const p = state.plan;
  if (!p || p.task !== currentTask() || p.from !== $('#backfill-from').value.trim() || p.to !== $('#backfill-to').value.trim()) {
    say('The range changed since the dry run: run the dry run again before confirming.', 'error');
    $('#backfill-confirm').hidden = true;
    return;
  }
  $('#backfill-confirm').hidden = true;
  state.plan = null;
  await act('/api/tasks/' + enc(p.task) + '/backfill', { from: p.from, to: p.to }, (a) => {
    const scheduled = a.windows.filter((w) => w.decision === 'SCHEDULED').length;
    return 'Backfill of ' + p.task + ' ' + a.range + ' sent: ' + scheduled + ' of ' + a.windows.length + ' windows scheduled';
  });
  $('#backfill-plan').replaceChildren();
}

/** What each window action does, for the question asked before it is sent; `needs` names its required text. */
const ACTIONS = {
  retry: { verb: 'Retry', done: 'retried', needs: null, what: 'each runs again as a new attempt' },
  resolve: { verb: 'Resolve', done: 'resolved', needs: 'note', what: 'each is marked RESOLVED with the note typed here' },
  cancel: { verb: 'Cancel', done: 'cancelled', needs: 'reason',
    what: 'each is marked CANCELLED (a running attempt is stopped) with the reason typed here' },
};

/** "a, b, c" or "a, b, ... and 7 more" */
function keysText(keys) {
  const MAX = 10;
  return keys.slice(0, MAX).join(', ') + (keys.length > MAX ? ' and ' + (keys.length - MAX) + ' more' : '');
}

/**
 * Asks for an action in a form ('bulk' or 'window'): the question names the action, how many windows
 * and of which task; its text field starts empty, so a note typed for one action, task or selection
 * is never sent with another.
 */
function openConfirm(form, action, task, keys) {
  const a = ACTIONS[action];
  // a window's action is decided on the window as its detail shows it now
  state.pending[form] = { action, task, keys, version: form === 'window' ? shownVersion(task, keys[0]) : undefined };
  const n = keys.length;
  const question = form === 'bulk'
    ? a.verb + ' ' + n + (n === 1 ? ' window' : ' windows') + ' of task ' + task + ': ' + a.what + '. Windows: ' + keysText(keys)
    : a.verb + ' window ' + keys[0] + ' of task ' + task + ': ' + a.what.replace(/^each is/, 'it is') + '.';
  $('#' + form + '-confirm-text').textContent = question;
  const text = $('#' + form + '-text');
  text.value = '';
  text.hidden = !a.needs;
  text.placeholder = a.needs ? a.needs + ' (required)' : '';
  text.setAttribute('aria-label', a.needs || '');
  $('#' + form + '-go').textContent = a.verb + (form === 'bulk' ? ' ' + n + (n === 1 ? ' window' : ' windows') : ' window');
  $('#' + form + '-go').className = action === 'cancel' ? 'danger' : 'primary';
  const box = $('#' + form + '-confirm');
  box.dataset.action = action;
  box.hidden = false;
  (a.needs ? text : $('#' + form + '-go')).focus();
}

/** Drops the action asked for in a form, and its text. */
function closeConfirm(form) {
  state.pending[form] = null;
  $('#' + form + '-text').value = '';
  $('#' + form + '-confirm').hidden = true;
}

/** The text typed for the action asked for, or null (and why, said) when it needs one and has none. */
function confirmedText(form) {
  const p = state.pending[form];
  const a = ACTIONS[p.action];
  const text = $('#' + form + '-text').value.trim();
  if (a.needs && !text) {
    say('A ' + a.needs + ' is needed to ' + p.action + (form === 'bulk' ? ' windows' : ' a window') + ': type it in the box.', 'error');
    $('#' + form + '-text').focus();
    return null;
  }
  return text;
}

function actionBody(action, text) {
  return action === 'retry' ? undefined : action === 'resolve' ? { note: text } : { reason: text };
}

/** A bulk action's button: the question first, for the windows selected now. */
function askBulk(action) {
  const task = currentTask();
  const keys = [...state.selection];
  if (!task || keys.length === 0) return;
  openConfirm('bulk', action, task, keys);
}

/** The confirmed bulk action: one POST per window asked about, with a progress count and then a summary of those refused. */
async function bulkGo(e) {
  e.preventDefault();
  const p = state.pending.bulk;
  if (!p || state.busy) return;
  const text = confirmedText('bulk');
  if (text === null) return;
  closeConfirm('bulk');
  const { action, task, keys } = p;
  state.busy = true;
  renderSelection();
  const failures = [];
  let done = 0;
  const progress = $('#bulk-progress');
  for (const key of keys) {
    progress.textContent = action + ': ' + done + '/' + keys.length;
    const r = await send(windowPath(task, key) + '/' + action, actionBody(action, text));
    done++;
    if (r.ok) state.selection.delete(key);
    else failures.push(key + ': ' + r.error);
  }
  progress.textContent = action + ': ' + done + '/' + keys.length + ' done';
  state.busy = false;
  const ok = keys.length - failures.length;
  say(ok + ' of ' + keys.length + ' windows of ' + task + ' ' + ACTIONS[action].done + (failures.length ? '; '
    + failures.length + ' refused: ' + failures.join('; ') : ''), failures.length ? 'error' : 'ok');
  await refresh();
}

/** A selection changed: a question about the windows selected before is dropped with its text. */
function selectionChanged() {
  if (state.pending.bulk) closeConfirm('bulk');
}

/** The version of the window the detail shows, as the page read it, or null when it did not read that window. */
function shownVersion(task, key) {
  const s = state.shownWindow;
  return s && s.task === task && s.key === key ? s.version : null;
}

function windowRetry() {
  const task = currentTask();
  const key = state.route.window;
  actOnWindow(task, key, shownVersion(task, key), 'retry', undefined, (a) => 'Retry of ' + task + ' ' + key + ': now ' + a.status)
    .then((a) => { if (a && state.route.task === task && state.route.window === key) showWindow(task, key); });
}

async function windowGo(e) {
  e.preventDefault();
  const p = state.pending.window;
  if (!p) return;
  const text = confirmedText('window');
  if (text === null) return;
  closeConfirm('window');
  const key = p.keys[0];
  const verb = { retry: 'Retry of', resolve: 'Resolved', cancel: 'Cancelled' }[p.action];
  const a = await actOnWindow(p.task, key, p.version, p.action, actionBody(p.action, text),
    (answer) => verb + ' ' + p.task + ' ' + key + ': now ' + answer.status);
  if (a && state.route.task === p.task && state.route.window === key) showWindow(p.task, key);
}

// ---- refresh and start -----------------------------------------------------------------------

export async function refresh() {
  try {
    const health = fetch('/health/ready', { cache: 'no-store' }).then((r) => r.json()).catch(() => null);
    const page = PAGES.find((p) => p.view === state.route.view);
    if (state.route.view === 'task') await refreshTask(state.route.task);
    else if (state.route.view === 'search') await refreshSearch();
    else if (page) await page.refresh();
    else await refreshList();
    const h = await health;
    if (h) renderHealth(h);
    $('#updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    document.body.dataset.loaded = 'true';
    document.body.dataset.view = state.route.view;
  } catch (e) {
    say('Cannot read from the node: ' + e.message, 'error');
  }
}

function start() {
  const t = $('#token');
  t.value = token();
  t.addEventListener('input', () => sessionStorage.setItem(TOKEN_KEY, t.value.trim()));
  $('#refresh').addEventListener('click', refresh);
  $('#legend').replaceChildren(...STATUSES.map((s) => el('span', {}, el('i', { className: 'st-' + s, text: GLYPH[s] }), s)),
    el('span', {}, el('i', { className: 'late-key', text: '!' }), 'missed its deadline'),
    el('span', {}, el('i', { className: 'pool-key', text: 'P' }), 'waits for a pool'));
  $('#filter-status').append(...STATUSES.map((s) => el('option', { value: s, text: 'latest window: ' + s })),
    el('option', { value: 'NONE', text: 'no window yet' }));
  $('#windows-status').append(...STATUSES.map((s) => el('option', { value: s, text: s })));
  for (const id of ['#filter-text', '#filter-status', '#filter-paused', '#filter-attention']) {
    $(id).addEventListener('input', renderTasks);
    $(id).addEventListener('change', renderTasks);
  }
  $('#filters').addEventListener('submit', (e) => e.preventDefault());
  $('#task-pause').addEventListener('click', () => act('/api/tasks/' + enc(currentTask()) + '/pause', undefined,
    (a) => 'Paused ' + a.task));
  $('#task-resume').addEventListener('click', () => act('/api/tasks/' + enc(currentTask()) + '/resume', undefined,
    (a) => 'Resumed ' + a.task));
  $('#task-run').addEventListener('click', () => act('/api/tasks/' + enc(currentTask()) + '/run', undefined,
    (a) => 'Run now: window ' + a.window + ' ' + a.decision + (a.reason ? ' (' + a.reason + ')' : '')));
  $('#backfill').addEventListener('submit', backfillDryRun);
  $('#backfill-confirm').addEventListener('click', backfillConfirm);
  $('#windows-older').addEventListener('click', () => { if (state.next) { state.pages.push(state.next); refresh(); } });
  $('#windows-newer').addEventListener('click', () => { if (state.pages.length > 1) { state.pages.pop(); refresh(); } });
  $('#windows-status').addEventListener('change', () => { state.pages = [null]; refresh(); });
  $('#select-all').addEventListener('change', (e) => {
    state.windows.forEach((w) => { if (e.target.checked) state.selection.add(w.window); else state.selection.delete(w.window); });
    selectionChanged();
    renderWindows();
  });
  $('#bulk-retry').addEventListener('click', () => askBulk('retry'));
  $('#bulk-resolve').addEventListener('click', () => askBulk('resolve'));
  $('#bulk-cancel').addEventListener('click', () => askBulk('cancel'));
  $('#bulk-confirm').addEventListener('submit', bulkGo);
  $('#bulk-back').addEventListener('click', () => closeConfirm('bulk'));
  $('#window-retry').addEventListener('click', windowRetry);
  $('#window-resolve').addEventListener('click', () => openConfirm('window', 'resolve', currentTask(), [state.route.window]));
  $('#window-cancel').addEventListener('click', () => openConfirm('window', 'cancel', currentTask(), [state.route.window]));
  $('#window-confirm').addEventListener('submit', windowGo);
  $('#window-back').addEventListener('click', () => closeConfirm('window'));
  initBulk();
  initSearch();
  window.addEventListener('hashchange', route);
  route();
  state.timer = setInterval(() => { if (!state.busy) { refresh(); refreshRunningWindow(); } }, REFRESH_MS);
}

start();

// The dashboard's bulk actions on a set of windows named by a filter, each in ONE call of the HTTP API
// ("Bulk actions" in docs/http-api.md): the whole intervention queue or one task's part of it (the list page),
// and a range of a task's windows (the task page). Each asks the node first (a dry run) how many windows the
// filter holds now, names that count in its question, and sends it as `expect`: the node refuses the action
// (412) when the set has changed meanwhile. The answer says how many were done and which were refused and why.
// An ES module of the dashboard (app.js); its sections are built here, so index.html holds none of them.

import { $, el, enc, say, send, state } from './common.js';
import { refresh } from './app.js';

const QUEUE_ACTIONS = {
  retry: { verb: 'Retry', done: 'retried', needs: null },
  resolve: { verb: 'Resolve', done: 'resolved', needs: 'note' },
};

/** The task filter of the queue: '' for every task. */
export function queueTask() {
  const s = $('#queue-task');
  return s ? s.value : '';
}

/** The queue's windows the filter keeps. */
export function queueFiltered(windows) {
  const task = queueTask();
  return windows.filter((w) => !task || w.task === task);
}

/** "37 windows" / "1 window" */
function windowsText(n) {
  return n + (n === 1 ? ' window' : ' windows');
}

/** The answer of a bulk call in words: how many done, and each refusal with why. */
function resultText(a, done) {
  const refused = a.refused || [];
  return a.done + ' of ' + windowsText(a.matched) + ' ' + done + (refused.length ? '; ' + refused.length + ' refused: '
    + refused.map((f) => f.task + ' ' + f.window + ' (' + f.status + '): ' + f.detail).join('; ') : '');
}

/** The result box of a section: the sentence and, when some were refused, a row each with why. */
function showResult(box, a, done) {
  const refused = a.refused || [];
  box.dataset.done = String(a.done);
  box.dataset.refused = String(refused.length);
  box.replaceChildren(el('p', { className: 'bulk-summary', text: a.done + ' of ' + windowsText(a.matched) + ' ' + done
    + (refused.length ? ', ' + refused.length + ' refused:' : '.') }),
  refused.length ? el('ul', { className: 'refused' }, ...refused.map((f) => el('li', { dataset: { task: f.task, window: f.window },
    text: f.task + ' ' + f.window + ' — ' + f.status + ' ' + f.problem + ': ' + f.detail }))) : null);
  box.hidden = false;
}

// ---- the intervention queue (the list page) ------------------------------------------------------

function buildQueueBulk() {
  const section = $('#queue-section');
  const bar = el('form', { id: 'queue-bulk', className: 'actions bulk', autocomplete: 'off',
    onsubmit: (e) => e.preventDefault() },
  el('select', { id: 'queue-task', 'aria-label': 'task of the queue', onchange: queueFilterChanged },
    el('option', { value: '', text: 'every task' })),
  el('label', {}, el('input', { id: 'queue-select-all', type: 'checkbox', onchange: renderQueueBulkState }),
    el('span', { id: 'queue-select-all-text', text: ' select all' })),
  el('button', { id: 'queue-retry-all', type: 'button', className: 'primary', text: 'Retry all…',
    onclick: () => askQueue('retry') }),
  el('button', { id: 'queue-resolve-all', type: 'button', text: 'Resolve all…', onclick: () => askQueue('resolve') }));
  const confirm = el('form', { id: 'queue-confirm', className: 'confirm', autocomplete: 'off', hidden: true,
    onsubmit: queueGo },
  el('p', { id: 'queue-confirm-text' }),
  el('div', { className: 'actions' },
    el('input', { id: 'queue-text', 'aria-label': 'note' }),
    el('button', { id: 'queue-go', type: 'submit', className: 'primary', text: 'Confirm' }),
    el('button', { id: 'queue-back', type: 'button', text: 'Back', onclick: closeQueueConfirm })));
  const result = el('div', { id: 'queue-result', className: 'bulk-result', hidden: true });
  section.querySelector('h2').after(bar, confirm, result);
}

/** The queue as read now: the task filter's options (each task with its count), the select-all label. */
export function renderQueueBulk(windows) {
  const select = $('#queue-task');
  if (!select) return;
  const counts = new Map();
  windows.forEach((w) => counts.set(w.task, (counts.get(w.task) || 0) + 1));
  const chosen = select.value;
  const tasks = [...counts.keys()].sort();
  if (chosen && !counts.has(chosen)) tasks.push(chosen); // kept while chosen, with 0
  const options = [['', 'every task (' + windows.length + ')']].concat(tasks.map((t) => [t, t + ' (' + (counts.get(t) || 0) + ')']));
  // rebuilt only when they changed: a refresh must not close the list a person has open, nor swap the option
  // being picked
  const same = select.options.length === options.length
    && options.every(([v, text], i) => select.options[i].value === v && select.options[i].text === text);
  if (!same) {
    select.replaceChildren(...options.map(([v, text]) => el('option', { value: v, text })));
    select.value = chosen;
  }
  $('#queue-bulk').hidden = windows.length === 0 && !chosen;
  renderQueueBulkState();
}

function renderQueueBulkState() {
  const n = queueFiltered(state.queue).length;
  const task = queueTask();
  $('#queue-select-all-text').textContent = ' select all ' + windowsText(n) + (task ? ' of ' + task : ' of every task')
    + ' (the whole filtered queue)';
  if (n === 0) $('#queue-select-all').checked = false;
  const on = $('#queue-select-all').checked && n > 0 && !state.busy;
  $('#queue-retry-all').disabled = !on;
  $('#queue-resolve-all').disabled = !on;
}

function queueFilterChanged() {
  $('#queue-select-all').checked = false; // a selection is of one filter: another filter starts without one
  closeQueueConfirm();
  refresh();
}

function closeQueueConfirm() {
  state.pendingQueue = null;
  $('#queue-text').value = '';
  $('#queue-confirm').hidden = true;
}

/** The question, with the count the node says the filter holds now (a dry run): "Retry 37 windows of task X?" */
async function askQueue(action) {
  const task = queueTask();
  const body = { dryRun: true };
  if (task) body.task = task;
  const r = await send('/api/queue/' + action, body);
  if (!r.ok) {
    say('Refused: ' + r.error, 'error');
    return;
  }
  const n = r.answer.matched;
  if (n === 0) {
    say('The queue' + (task ? ' of ' + task : '') + ' is empty now: nothing to ' + action + '.', 'error');
    await refresh();
    return;
  }
  const a = QUEUE_ACTIONS[action];
  state.pendingQueue = { action, task, count: n };
  $('#queue-confirm-text').textContent = a.verb + ' ' + windowsText(n) + (task ? ' of task ' + task : ' of every task') + '?'
    + (action === 'retry' ? ' Each runs again as a new attempt.' : ' Each is marked RESOLVED with the note typed here.');
  const text = $('#queue-text');
  text.value = '';
  text.hidden = !a.needs;
  text.placeholder = a.needs ? a.needs + ' (required)' : '';
  $('#queue-go').textContent = a.verb + ' ' + windowsText(n);
  $('#queue-confirm').dataset.action = action;
  $('#queue-confirm').dataset.count = String(n);
  $('#queue-confirm').hidden = false;
  (a.needs ? text : $('#queue-go')).focus();
}

async function queueGo(e) {
  e.preventDefault();
  const p = state.pendingQueue;
  if (!p || state.busy) return;
  const a = QUEUE_ACTIONS[p.action];
  const note = $('#queue-text').value.trim();
  if (a.needs && !note) {
    say('A note is needed to resolve windows: type it in the box.', 'error');
    return;
  }
  closeQueueConfirm();
  const body = { expect: p.count };
  if (p.task) body.task = p.task;
  if (note) body.note = note;
  state.busy = true;
  renderQueueBulkState();
  const r = await send('/api/queue/' + p.action, body);
  state.busy = false;
  $('#queue-select-all').checked = false;
  if (!r.ok) {
    say((r.status === 412 ? 'Not done: the queue changed since you confirmed. ' : 'Refused: ') + r.error, 'error');
  } else {
    showResult($('#queue-result'), r.answer, a.done);
    say(resultText(r.answer, a.done), r.answer.refused.length ? 'error' : 'ok');
  }
  await refresh();
}

// ---- a range of a task's windows (the task page) ------------------------------------------------

const RETRYABLE = ['FINAL_FAILED', 'CANCELLED', 'SKIPPED', 'MISSED'];

function buildRange() {
  const section = el('section', { id: 'range-section', hidden: true },
    el('h2', {}, 'Retry or cancel a range ', el('span', { className: 'muted',
      text: 'the windows due in (from, to]: preview the count first, then confirm' })),
    el('form', { id: 'range', className: 'actions', autocomplete: 'off', onsubmit: rangePreview },
      el('select', { id: 'range-action', 'aria-label': 'action', onchange: rangeActionChanged },
        el('option', { value: 'retry', text: 'retry' }), el('option', { value: 'cancel', text: 'cancel' })),
      el('input', { id: 'range-from', placeholder: 'from, e.g. 2026-11-20T00:00:00Z', 'aria-label': 'from (exclusive)' }),
      el('input', { id: 'range-to', placeholder: 'to, e.g. 2026-11-29T00:00:00Z', 'aria-label': 'to (inclusive)' }),
      el('select', { id: 'range-status', 'aria-label': 'status' }),
      el('button', { id: 'range-preview', type: 'submit', text: 'Preview' })),
    el('form', { id: 'range-confirm', className: 'confirm', autocomplete: 'off', hidden: true, onsubmit: rangeGo },
      el('p', { id: 'range-confirm-text' }),
      el('div', { className: 'actions' },
        el('input', { id: 'range-text', 'aria-label': 'note or reason' }),
        el('button', { id: 'range-go', type: 'submit', className: 'primary', text: 'Confirm' }),
        el('button', { id: 'range-back', type: 'button', text: 'Back', onclick: closeRange }))),
    el('div', { id: 'range-result', className: 'bulk-result', hidden: true }));
  $('#backfill-section').after(section);
  rangeActionChanged();
}

/** The status filter follows the action: a retry takes the statuses an operator may retry, a cancel the next attempt's kind. */
function rangeActionChanged() {
  const retry = $('#range-action').value === 'retry';
  const s = $('#range-status');
  s.replaceChildren(...(retry
    ? [el('option', { value: '', text: 'any retryable status' }), ...RETRYABLE.map((x) => el('option', { value: x, text: x }))]
    : [el('option', { value: '', text: 'not started, any kind' }),
      ...['backfill', 'retry', 'manual', 'first'].map((k) => el('option', { value: k, text: 'not started, next run ' + k }))]));
  closeRange();
}

/** Drops the range asked about (another task, another range, Back). */
export function resetRange() {
  if (!$('#range-section')) return;
  closeRange();
  $('#range-result').hidden = true;
  $('#range-result').replaceChildren();
}

function closeRange() {
  state.pendingRange = null;
  $('#range-text').value = '';
  $('#range-confirm').hidden = true;
}

/** The range's body as the endpoint of its action takes it. */
function rangeBody(action, from, to, filter) {
  const body = {};
  if (from) body.from = from;
  if (to) body.to = to;
  if (filter) body[action === 'retry' ? 'status' : 'kind'] = filter;
  return body;
}

async function rangePreview(e) {
  e.preventDefault();
  const task = state.route.task;
  const action = $('#range-action').value;
  const from = $('#range-from').value.trim();
  const to = $('#range-to').value.trim();
  const filter = $('#range-status').value;
  closeRange();
  const r = await send('/api/tasks/' + enc(task) + '/' + action, { ...rangeBody(action, from, to, filter), dryRun: true });
  if (!r.ok) {
    say('Refused: ' + r.error, 'error');
    return;
  }
  const n = action === 'retry' ? r.answer.matched : r.answer.cancelled;
  // "3 FINAL_FAILED windows", "2 not started windows (next run backfill)"
  const what = (action === 'retry' ? ' ' + (filter || 'retryable') : ' not started') + (n === 1 ? ' window' : ' windows')
    + (action === 'cancel' && filter ? ' (next run ' + filter + ')' : '');
  if (n === 0) {
    say('No' + what.replace(/ windows?/, ' window') + ' of task ' + task + ' is due in ' + r.answer.range + ': nothing to '
      + action + '.', 'error');
    return;
  }
  state.pendingRange = { task, action, from, to, filter, count: n };
  $('#range-confirm-text').textContent = (action === 'retry' ? 'Retry ' : 'Cancel ') + n + what + ' of task '
    + task + ' due in ' + r.answer.range + '?' + (action === 'retry' ? ' Each runs again as a new attempt.'
    : ' Each is marked CANCELLED with the reason typed here; running attempts go on.');
  const text = $('#range-text');
  text.value = '';
  text.placeholder = action === 'retry' ? 'note (optional)' : 'reason (required)';
  $('#range-go').textContent = (action === 'retry' ? 'Retry ' : 'Cancel ') + windowsText(n);
  $('#range-go').className = action === 'cancel' ? 'danger' : 'primary';
  $('#range-confirm').dataset.count = String(n);
  $('#range-confirm').dataset.action = action;
  $('#range-confirm').hidden = false;
  text.focus();
}

async function rangeGo(e) {
  e.preventDefault();
  const p = state.pendingRange;
  if (!p || state.busy || p.task !== state.route.task) return;
  if (p.from !== $('#range-from').value.trim() || p.to !== $('#range-to').value.trim()
    || p.action !== $('#range-action').value || p.filter !== $('#range-status').value) {
    say('The range changed since the preview: preview it again before confirming.', 'error');
    closeRange();
    return;
  }
  const text = $('#range-text').value.trim();
  if (p.action === 'cancel' && !text) {
    say('A reason is needed to cancel windows: type it in the box.', 'error');
    return;
  }
  closeRange();
  const body = rangeBody(p.action, p.from, p.to, p.filter);
  if (p.action === 'retry') {
    body.expect = p.count;
    if (text) body.note = text;
  } else {
    body.reason = text;
  }
  state.busy = true;
  const r = await send('/api/tasks/' + enc(p.task) + '/' + p.action, body);
  state.busy = false;
  if (!r.ok) {
    say((r.status === 412 ? 'Not done: the range changed since the preview. ' : 'Refused: ') + r.error, 'error');
  } else {
    // the bulk cancel answers its count as `cancelled`, all in one write: none is refused one by one
    const a = p.action === 'retry' ? r.answer : { matched: r.answer.cancelled, done: r.answer.cancelled, refused: [] };
    const done = p.action === 'retry' ? 'retried' : 'cancelled';
    showResult($('#range-result'), a, done);
    say('Task ' + p.task + ' ' + r.answer.range + ': ' + resultText(a, done), a.refused.length ? 'error' : 'ok');
  }
  await refresh();
}

/** Builds the sections (before the first route). */
export function initBulk() {
  state.pendingQueue = null;
  state.pendingRange = null;
  buildQueueBulk();
  buildRange();
}

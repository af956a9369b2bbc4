// The dashboard's window detail (its fields, progress, log, steps, why and timeline) and the calls that act on a
// window. An ES module of the dashboard (app.js).

import { millisText } from './charts.js';
import {
  $, el, eventsText, getJson, poolWaitText, say, send, shown, state, taskHref, usageText, windowPath
} from './common.js';
import { refresh } from './app.js';

/** One action: its outcome (or the problem) is said at the top of the page, then the page refreshes. */
export async function act(path, body, doneText) {
  const r = await send(path, body);
  if (!r.ok) {
    say('Refused: ' + r.error, 'error');
    return null;
  }
  say(doneText(r.answer), 'ok');
  await refresh();
  return r.answer;
}

/**
 * One action on one window (retry, resolve, cancel), taken on the window as the page showed it: its
 * version goes as `If-Match`. A window that changed since is refused by the node (412) with nothing
 * stored: the page says so, shows the window's new state and sends nothing more (the operator decides
 * again on what is shown now). Answers the action's answer, or null.
 */
export async function actOnWindow(task, key, version, action, body, doneText) {
  if (version === null || version === undefined) {
    say('Not sent: the page has not read window ' + key + ' of task ' + task + ' (its version is unknown); '
      + 'open the window again before acting on it.', 'error');
    return null;
  }
  const r = await send(windowPath(task, key) + '/' + action, body, version);
  if (r.ok) {
    say(doneText(r.answer), 'ok');
    await refresh();
    return r.answer;
  }
  if (r.status === 412) {
    await changedSinceShown(task, key);
    return null;
  }
  say('Refused: ' + r.error, 'error');
  return null;
}

/** A window action refused as stale (412): said in words, with the window's state now, which the page then shows. */
async function changedSinceShown(task, key) {
  let now = null;
  try { now = await getJson(windowPath(task, key)); } catch (e) { /* said below without its state */ }
  const m = $('#message');
  say('Not done: window ' + key + ' of task ' + task + ' changed since the page showed it'
    + (now ? ' (it is now ' + now.status + ', attempt ' + now.attempt + ')' : '') + '. Nothing was changed and '
    + 'nothing more is sent: its new state is shown; act again if it is still needed.', 'error');
  m.dataset.stale = task + '\u0000' + key;
  await refresh();
  if (state.route.view === 'task' && state.route.task === task && state.route.window === key) await showWindow(task, key);
}

// ---- a window: its fields, progress, log, steps, why and timeline --------------------------------

export async function showWindow(task, key) {
  const panel = $('#detail');
  panel.hidden = false;
  panel.dataset.task = task;
  panel.dataset.window = key;
  $('#detail-title').textContent = task + ' ' + key;
  $('#detail-close').setAttribute('href', taskHref(task));
  if (panel.dataset.shown !== task + '\u0000' + key) { // another window: not the previous one's words meanwhile
    panel.dataset.shown = task + '\u0000' + key;
    $('#detail-fields').replaceChildren();
    $('#why').replaceChildren(el('p', { className: 'muted', text: 'loading…' }));
    $('#timeline').replaceChildren(el('p', { className: 'muted', text: 'loading…' }));
    $('#logs').replaceChildren(el('p', { className: 'muted', text: 'loading…' }));
    $('#steps').replaceChildren(el('p', { className: 'muted', text: 'loading…' }));
    $('#progress').hidden = true;
  }
  const path = windowPath(task, key);
  const [w, why, timeline, logs, steps] = await Promise.allSettled([getJson(path), getJson(path + '/why'),
    getJson(path + '/timeline'), getJson(path + '/logs'), getJson(path + '/steps')]);
  if (state.route.task !== task || state.route.window !== key) return;
  // a window that left the task's hot state is still in the list read from the instance table (with no
  // version: an action on it is not sent, as the page cannot say which state it would act on)
  const known = w.status === 'fulfilled' ? w.value
    : state.windows.concat(state.chartWindows || []).find((x) => x.window === key);
  const version = w.status === 'fulfilled' && w.value.version !== undefined ? w.value.version : null;
  state.shownWindow = { task, key, version };
  if (version === null) delete panel.dataset.version; else panel.dataset.version = String(version);
  if (known) renderWindowFields(known);
  else $('#detail-fields').replaceChildren(el('dt', { text: 'window' }), el('dd', { text: 'not available: ' + w.reason.message }));
  renderProgress(w.status === 'fulfilled' ? w.value.progress : null);
  if (logs.status === 'fulfilled') renderLogs(logs.value.attempts || []);
  else $('#logs').replaceChildren(el('p', { className: 'muted', text: 'not available: ' + logs.reason.message }));
  if (steps.status === 'fulfilled') renderSteps(steps.value.steps || []);
  else $('#steps').replaceChildren(el('p', { className: 'muted', text: 'not available: ' + steps.reason.message }));
  if (why.status === 'fulfilled') {
    const y = why.value;
    $('#why').replaceChildren(el('p', { className: 'verdict', text: y.verdict }),
      el('div', { className: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, el('th', { text: 'at (local)' }),
        el('th', { text: 'at (UTC)' }), el('th', { text: 'what happened' }))),
      el('tbody', {}, ...(y.steps || []).map((s) => el('tr', {}, el('td', { className: 'time', text: shown(s.atLocal) }),
        el('td', { className: 'time', text: shown(s.atUtc) }), el('td', { text: s.text })))))));
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

/** One log line: "08:00:01 INFO gathered 12 sources" (UTC), its level as a class. */
function logLine(l) {
  return el('span', { className: 'log-line ' + (l.level || '') },
    (l.at ? String(l.at).substring(11, 19) : '') + ' ' + (l.level || '') + ' ' + (l.text || '') + '\n');
}

/** A running attempt's progress bar, what it says it does and its latest lines; hidden when none. */
function renderProgress(p) {
  const box = $('#progress');
  if (!p) {
    box.hidden = true;
    delete box.dataset.attempt;
    return;
  }
  box.hidden = false;
  box.dataset.attempt = String(p.attempt);
  const bar = $('#progress-bar');
  if (p.fraction === null || p.fraction === undefined) bar.removeAttribute('value');
  else bar.value = p.fraction;
  bar.dataset.fraction = p.fraction === null || p.fraction === undefined ? '' : String(p.fraction);
  const pct = p.fraction === null || p.fraction === undefined ? '' : Math.round(p.fraction * 100) + '%';
  $('#progress-text').textContent = 'attempt ' + p.attempt + (pct ? ': ' + pct : '') + (p.text ? ' – ' + p.text : '')
    + ' (at ' + shown(p.at) + ')';
  $('#progress-lines').replaceChildren(...(p.latest || []).map(logLine));
  $('#progress-lines').hidden = !(p.latest || []).length;
}

/** Each attempt's log lines (UTC times), the dropped marker, and its failure's stack trace. */
function renderLogs(attempts) {
  if (!attempts.length) {
    $('#logs').replaceChildren(el('p', { className: 'muted',
      text: 'no log lines or stack traces recorded (ctx.log() lines and a failure\'s stack trace are kept per attempt)' }));
    return;
  }
  $('#logs').replaceChildren(...attempts.map((a) => el('div', { className: 'attempt-log', dataset: { attempt: String(a.attempt) } },
    el('h4', { text: 'Attempt ' + a.attempt + ' (ended ' + shown(a.at) + ')' }),
    (a.lines || []).length ? el('pre', { className: 'log' }, ...a.lines.map(logLine)) : null,
    a.dropped ? el('p', { className: 'muted dropped', text: a.dropped }) : null,
    a.stackTrace ? el('pre', { className: 'stack', text: a.stackTrace }) : null)));
}

/**
 * Each attempt's durable steps (`/steps`), in the order the node lists them: the attempt, the step's name,
 * RECORDED (the attempt ran it) or REPLAYED (by attempt N: it got the result attempt N recorded), how long it
 * ran (a replay shows how long it ran when recorded), and its tokens, cost and model when the step reported usage
 * (on the attempt that recorded it only: a replay used nothing).
 */
function renderSteps(steps) {
  if (!steps.length) {
    $('#steps').replaceChildren(el('p', { className: 'muted',
      text: 'no durable steps recorded (ctx.step results are kept per attempt; an attempt\'s replays show once it ended)' }));
    return;
  }
  const none = (v) => (v === null || v === undefined ? '–' : String(v));
  $('#steps').replaceChildren(el('table', {},
    el('thead', {}, el('tr', {}, ...['attempt', 'step', 'kind', 'took', 'tokens in', 'tokens out', 'cost', 'model', 'at (UTC)']
      .map((h) => el('th', { text: h })))),
    el('tbody', {}, ...steps.map((s) => el('tr', { className: 'step ' + (s.kind || ''),
      dataset: { attempt: String(s.attempt), step: String(s.name), kind: String(s.kind) } },
    el('td', { text: none(s.attempt) }), el('td', { className: 'step-name', text: none(s.name) }),
    el('td', { className: 'step-kind', text: none(s.kind) + (s.kind === 'REPLAYED' && s.recordedBy !== null
      && s.recordedBy !== undefined ? ' by attempt ' + s.recordedBy : '') }),
    el('td', { className: 'step-took', text: s.durationMs === null || s.durationMs === undefined ? '–'
      : millisText(s.durationMs) + (s.kind === 'REPLAYED' ? ' when recorded' : '') }),
    el('td', { text: s.usage ? none(s.usage.tokensIn) : '' }), el('td', { text: s.usage ? none(s.usage.tokensOut) : '' }),
    el('td', { text: s.usage ? none(s.usage.cost) : '' }), el('td', { text: s.usage && s.usage.model ? s.usage.model : '' }),
    el('td', { className: 'time', text: shown(s.atUtc) }))))));
}

/**
 * A shown window that runs is read again at each refresh: its progress bar moves, its steps grow, and its end
 * shows its log. Once the end is read, the window is read once more: a log or steps read answered before the end
 * was stored (the reads run in parallel) would otherwise stay shown without the attempt's last lines and replays.
 */
export async function refreshRunningWindow() {
  const r = state.route;
  const panel = $('#detail');
  if (r.view !== 'task' || !r.window || panel.hidden || panel.dataset.status !== 'RUNNING') return;
  await showWindow(r.task, r.window);
  if (panel.dataset.status !== 'RUNNING' && state.route.task === r.task && state.route.window === r.window) {
    await showWindow(r.task, r.window);
  }
}

function renderWindowFields(w) {
  const fields = [['status', w.status], ['reason', w.reason], ['summary', w.summary], ['run kind', w.runKind],
    ['attempt', w.attempt + ' (retries ' + w.retries + ' of ' + w.maxRetries + ')'],
    ['window', shown(w.start) + ' – ' + shown(w.end) + ' (UTC)'], ['due', shown(w.dueAt)],
    ['started', shown(w.startedAt)], ['finished', shown(w.finishedAt)],
    ['wait until', w.waitUntil ? shown(w.waitUntil) + ' (UTC)' : null], ['events', eventsText(w)],
    ['deadline missed', w.deadlineMissedAt ? shown(w.deadlineMissedAt) + ' (UTC)' : null],
    ['pool wait', w.poolWait ? poolWaitText(w.poolWait) : null], ['usage', w.usage ? usageText(w.usage) : null],
    ['updated', shown(w.updatedAt)]];
  $('#detail-fields').replaceChildren(...fields.filter(([, v]) => v !== null && v !== undefined && v !== '')
    .flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { className: 'f-' + k.replace(' ', '-'), text: v })]));
  $('#detail').dataset.status = w.status;
}

// The dashboard's constants, shared state and small helpers: elements, the API's calls, texts of a window's
// typed fields. No framework and no build step (an ES module).

export const TOKEN_KEY = 'almanac.token';
export const REFRESH_MS = 5000;
/** Each task's own latest windows shown in the list (GET /api/tasks?latest=). */
export const LATEST = 20;
export const PAGE = 50;
export const CHART_WINDOWS = 500;
export const STATUSES = ['SUCCEEDED', 'RUNNING', 'PENDING', 'WAITING', 'RETRY_WAIT', 'SKIPPED', 'MISSED', 'FINAL_FAILED', 'CANCELLED',
  'RESOLVED'];
export const GLYPH = { SUCCEEDED: '✓', RUNNING: '▶', PENDING: '·', WAITING: '…', RETRY_WAIT: '↻', SKIPPED: '↷', MISSED: '–',
  FINAL_FAILED: '✗', CANCELLED: '⊘', RESOLVED: '✔' };

export const state = {
  route: { view: 'list' },
  tasks: [], queue: [], resolving: null,
  task: null, // the task page's task JSON
  pages: [null], // the task page's cursors: pages[i] is the `after` of page i
  next: null, windows: [], selection: new Set(),
  plan: null, // the backfill dry run shown: {task, from, to}
  // the action asked for and not yet confirmed, one per form ('bulk', 'window'): {action, task, keys, version}
  pending: { bulk: null, window: null },
  shownWindow: null, // the window the detail shows, as read: {task, key, version} (version null when not read)
  missing: null, // the task page's task when the node has no such task (404) or it is not a task id (400)
  busy: false, firstRender: null, timer: null,
};

// ---- small helpers ---------------------------------------------------------------------------

export function el(tag, attrs, ...children) {
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

export const $ = (sel) => document.querySelector(sel);
export const enc = (s) => encodeURIComponent(s);
/** "2026-11-30T08:00:00+08:00" -> "2026-11-30 08:00:00+08:00" */
export const shown = (iso) => (iso ? String(iso).replace('T', ' ').replace(/\.\d+/, '') : '–');
export const ms = (a, b) => (a && b ? Date.parse(b) - Date.parse(a) : null);

export const taskHref = (task) => '#/tasks/' + enc(task);
export const windowHref = (task, window) => taskHref(task) + '/windows/' + enc(window);
export const windowPath = (task, window) => '/api/tasks/' + enc(task) + '/windows/' + enc(window);

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function say(text, kind) {
  const m = $('#message');
  m.textContent = text;
  m.className = 'message ' + (kind || 'ok');
  m.hidden = false;
  delete m.dataset.stale;
}

/** The banner belongs to the page it was said on: another address starts without it. */
export function unsay() {
  const m = $('#message');
  m.hidden = true;
  m.textContent = '';
  delete m.dataset.stale;
}

/** A problem+json answer (or any error answer) in words: "Refused (409): detail [field f = "v"]". */
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

export async function getJson(path) {
  // the token, when entered, goes on reads too: a node with almanac.http.read-requires-token needs it
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  const res = await fetch(path, { headers, cache: 'no-store' });
  if (!res.ok) {
    const e = new Error(await problemText(res));
    e.status = res.status;
    throw e;
  }
  return res.json();
}

/**
 * A mutating call with the bearer token: {ok, answer} or {ok: false, status, error} (the problem in
 * words); with a window's version, sent as `If-Match` (the node refuses it 412 when the window changed since).
 */
export async function send(path, body, version) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (version !== undefined) headers['If-Match'] = '"' + version + '"';
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers, body: body === undefined ? null : JSON.stringify(body) });
  } catch (e) {
    return { ok: false, status: 0, error: 'the node cannot be reached (' + e.message + ')' };
  }
  if (!res.ok) return { ok: false, status: res.status, error: await problemText(res) };
  return { ok: true, answer: await res.json() };
}

/** A window's usage (its attempts' sums) in words: "1200 in / 340 out tokens, cost 0.0215, model gpt-4o". */
export function usageText(u) {
  return u.tokensIn + ' in / ' + u.tokensOut + ' out tokens, cost ' + u.cost + (u.model ? ', model ' + u.model : '');
}

/** A pool wait in words, as the marker's tooltip: "waiting for pool openai: PAUSED until 2026-...Z". */
export function poolWaitText(p) {
  return 'waiting for pool ' + p.pool + ': ' + p.reason + (p.until ? ' until ' + p.until : '');
}

/** A window's coalesced events in words, or '' when it has none. */
export function eventsText(w) {
  const e = w.events;
  if (!e) return '';
  const all = e.received + e.duplicates;
  return all + (all === 1 ? ' event' : ' events') + ' (' + e.received + ' distinct, ' + e.duplicates + ' duplicates)'
    + (e.firstId ? ', first id ' + e.firstId + ', last id ' + e.lastId : '');
}

/** A SKIPPED or MISSED window's typed cause (its reasonCode), not cut from its text; a WAITING one's deadline. */
export function reasonHead(w) {
  if (w.status === 'WAITING') return w.waitUntil ? 'until ' + shown(w.waitUntil) : 'waiting';
  return w.reasonCode || '';
}

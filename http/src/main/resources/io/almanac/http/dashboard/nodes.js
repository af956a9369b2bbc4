// The Nodes page (#/nodes): the cluster's members with their executors' lease and slots, where the trigger runs,
// and each resource pool's holders and waiters, from GET /api/nodes. An ES module; values go into the page as text.

import { $, el, getJson, shown, taskHref, windowHref } from './common.js';

/** An instant of the API (UTC) as the page shows it, under a column that says UTC: "2026-11-29 08:00:00". */
const utc = (iso) => shown(iso).replace(/Z$/, '');

function slotsCell(ex) {
  return el('td', { className: 'slots' },
    el('meter', { min: 0, max: Math.max(ex.slots, 1), value: ex.running, title: ex.running + ' of ' + ex.slots + ' slots in use' }),
    ' ' + ex.running + '/' + ex.slots, ex.stuck > 0 ? el('span', { className: 'attention', text: ex.stuck + ' stuck' }) : null);
}

function memberRow(m, view) {
  const ex = m.executor;
  const name = el('td', { className: 'node' }, el('span', { className: 'address', text: m.address }),
    m.self ? el('span', { className: 'badge', text: 'this node' }) : null,
    m.reachable ? null : el('span', { className: 'attention', text: 'unreachable' }));
  const trigger = el('td', { className: 'trigger', text: m.trigger ? (view.triggerAnswers ? 'trigger' : 'trigger (not answering)') : '' });
  const roles = el('td', { className: 'roles', text: (m.roles || []).join(', ') });
  const status = el('td', { className: 'status' }, el('span', { className: 'badge member-' + m.status, text: m.status }));
  if (!ex) {
    return el('tr', { dataset: { address: m.address, status: m.status, answered: 'false' } }, name, status, roles,
      el('td', { className: 'problem', colspan: 4, text: m.problem || 'no answer' }), trigger);
  }
  const queued = ex.queuedFresh + ex.queuedBacklog;
  const waiting = Object.entries(ex.poolWaiting || {}).map(([p, n]) => n + ' for ' + p).join(', ');
  return el('tr', { dataset: { address: m.address, status: m.status, answered: 'true', lease: ex.holdsLease ? 'held' : 'lost' } },
    name, status, roles,
    el('td', { className: 'time up-since', text: utc(ex.upSince) }),
    el('td', { className: 'lease ' + (ex.holdsLease ? 'ok' : 'bad'), title: ex.identity,
      text: (ex.holdsLease ? 'held' : 'NOT HELD: no job runs here')
        + (ex.leaseExpiresAt ? ', row expires ' + utc(ex.leaseExpiresAt).substring(11) : '') }),
    slotsCell(ex),
    el('td', { className: 'queued', title: ex.queuedFresh + ' fresh, ' + ex.queuedBacklog + ' retries, backfills and catch-ups',
      text: queued + (waiting ? ' (' + waiting + ')' : '') }),
    trigger);
}

function poolRows(p) {
  const held = p.holders === null ? '?' : String(p.holders.length);
  const head = [el('td', { className: 'pool', text: p.pool }), el('td', { className: 'held', text: held + '/' + p.maxConcurrent }),
    el('td', { className: 'waiting', text: String(p.waiting) })];
  if (p.holders === null || p.holders.length === 0) {
    return [el('tr', { dataset: { pool: p.pool } }, ...head,
      el('td', { className: 'muted', colspan: 5, text: p.holders === null ? 'the pool did not answer in time' : 'no holder' }))];
  }
  return p.holders.map((h, i) => el('tr', { dataset: { pool: p.pool, task: h.task, window: h.window } },
    ...(i === 0 ? head : [el('td'), el('td'), el('td')]),
    el('td', {}, el('a', { href: taskHref(h.task), text: h.task })),
    el('td', {}, el('a', { href: windowHref(h.task, h.window), text: h.window })),
    el('td', { className: 'holder-node', text: h.node }),
    el('td', { className: 'time since', text: utc(h.since) }),
    el('td', { className: 'time expires', text: utc(h.expiresAt) })));
}

function leaseRow(l) {
  return el('tr', { dataset: { lease: l.name, expired: String(l.expired) } },
    el('td', { className: 'lease-name', text: l.name }), el('td', { className: 'lease-owner', text: l.owner }),
    el('td', { className: 'time', text: utc(l.heartbeatAt) }),
    el('td', { className: 'time lease-expires' + (l.expired ? ' bad' : ''), text: utc(l.expiresAt) + (l.expired ? ' (expired)' : '') }));
}

/** Builds the page's sections once, in its view. */
function build() {
  const view = $('#view-nodes');
  if (view.childElementCount > 0) return;
  view.append(
    el('section', { id: 'nodes-section' },
      el('h2', {}, 'Nodes ', el('span', { className: 'muted', id: 'nodes-note' })),
      el('div', { className: 'table-wrap' }, el('table', { id: 'nodes' },
        el('thead', {}, el('tr', {}, ...['Node', 'Status', 'Roles', 'Up since (UTC)', 'Executor lease', 'Slots in use',
          'Queued', 'Trigger'].map((h) => el('th', { text: h })))),
        el('tbody')))),
    el('section', { id: 'pools-section' },
      el('h2', {}, 'Pools ', el('span', { className: 'muted', text: 'holds that count now across the cluster; waiting: windows queued for the pool' })),
      el('p', { id: 'pools-empty', className: 'muted', text: 'No resource pool is declared on this node.', hidden: true }),
      el('div', { className: 'table-wrap' }, el('table', { id: 'pool-holders' },
        el('thead', {}, el('tr', {}, ...['Pool', 'Held', 'Waiting', 'Task', 'Window', 'Node', 'Since (UTC)',
          'Expires (UTC)'].map((h) => el('th', { text: h })))),
        el('tbody')))),
    el('section', { id: 'leases-section' },
      el('h2', {}, 'Leases ', el('span', { className: 'muted', text: 'the lease table: the trigger\'s, the shards\' and each '
        + 'executor\'s, with when each expires unless its holder renews it (the database\'s clock)' })),
      el('p', { id: 'leases-problem', className: 'muted', hidden: true }),
      el('div', { className: 'table-wrap' }, el('table', { id: 'leases' },
        el('thead', {}, el('tr', {}, ...['Lease', 'Owner', 'Last renewed (UTC)', 'Expires (UTC)'].map((h) => el('th', { text: h })))),
        el('tbody')))));
}

async function refresh() {
  build();
  const v = await getJson('/api/nodes');
  const up = v.members.filter((m) => m.status === 'Up').length;
  $('#nodes-note').textContent = v.members.length + (v.members.length === 1 ? ' member, ' : ' members, ') + up + ' up; trigger on '
    + (v.triggerNode || 'no node') + '; read ' + utc(v.at) + ' UTC';
  $('#nodes tbody').replaceChildren(...v.members.map((m) => memberRow(m, v)));
  $('#pools-empty').hidden = v.pools.length > 0;
  $('#pool-holders').hidden = v.pools.length === 0;
  $('#pool-holders tbody').replaceChildren(...v.pools.flatMap(poolRows));
  $('#leases-problem').hidden = v.leases !== null;
  $('#leases-problem').textContent = v.leases === null ? 'Not shown: ' + v.leasesProblem : '';
  $('#leases').hidden = v.leases === null;
  $('#leases tbody').replaceChildren(...(v.leases || []).map(leaseRow));
  $('#view-nodes').dataset.members = String(v.members.length);
}

/** The page, as app.js registers it: shown at #/nodes. */
export const nodesPage = { view: 'nodes', title: 'Nodes', refresh };

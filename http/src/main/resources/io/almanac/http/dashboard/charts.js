// Inline SVG charts of a task's windows, no library: every value is drawn from the HTTP API's JSON.

const NS = 'http://www.w3.org/2000/svg';
const W = 480;
const H = 180;
const PAD = { left: 56, right: 12, top: 12, bottom: 22 };

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, String(v));
  }
  children.filter((c) => c).forEach((c) => e.append(c));
  return e;
}

/** The q-quantile (0..1) of numbers, nearest rank; null for none. */
export function quantile(values, q) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
}

/** A number for an axis: at most 4 decimals, no trailing zeros ("1.2", not "1.2000000000000008"). */
function num(v) {
  return String(Number(v.toFixed(4)));
}

/** Milliseconds in words: "850 ms", "12.4 s", "3.2 min", "1.5 h". */
export function millisText(ms) {
  if (ms === null || ms === undefined) return '–';
  const a = Math.abs(ms);
  if (a < 1000) return Math.round(ms) + ' ms';
  if (a < 60000) return (ms / 1000).toFixed(1) + ' s';
  if (a < 3600000) return (ms / 60000).toFixed(1) + ' min';
  return (ms / 3600000).toFixed(1) + ' h';
}

function frame(title, cls) {
  const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart ' + cls, role: 'img', 'aria-label': title });
  root.append(svg('title', { text: title }));
  root.append(svg('line', { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: 'axis' }));
  root.append(svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: 'axis' }));
  return root;
}

function figure(title, root, note) {
  const f = document.createElement('figure');
  f.className = 'chart-box';
  const cap = document.createElement('figcaption');
  cap.textContent = title + (note ? ' — ' + note : '');
  f.append(cap, root);
  return f;
}

/**
 * A bar per window (oldest left) of a duration in ms, with p50 and p99 lines and, when given, a lease line.
 * points: [{label, value}] ; returns a <figure> whose svg has class `cls` and data-p50/-p99 attributes.
 */
export function durationChart(title, cls, points, lease) {
  const values = points.map((p) => p.value);
  const p50 = quantile(values, 0.5);
  const p99 = quantile(values, 0.99);
  const root = frame(title, cls);
  if (!points.length) {
    root.append(svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'empty-text', text: 'no window with both times' }));
    return figure(title, root, null);
  }
  const max = Math.max(1, ...values, lease || 0);
  const y = (v) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const step = (W - PAD.left - PAD.right) / points.length;
  const bw = Math.max(1, step * 0.7);
  points.forEach((p, i) => {
    const x = PAD.left + i * step + (step - bw) / 2;
    root.append(svg('rect', { x: x.toFixed(1), y: y(p.value).toFixed(1), width: bw.toFixed(1),
      height: Math.max(0.5, H - PAD.bottom - y(p.value)).toFixed(1), class: 'bar' + (p.status ? ' st-' + p.status : '') },
    svg('title', { text: p.label + ': ' + millisText(p.value) })));
  });
  const line = (v, name, c) => {
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v).toFixed(1), y2: y(v).toFixed(1), class: 'ref ' + c }));
    root.append(svg('text', { x: PAD.left - 4, y: (y(v) + 4).toFixed(1), 'text-anchor': 'end', class: 'ref-label ' + c,
      text: name }));
  };
  line(p50, 'p50', 'p50');
  line(p99, 'p99', 'p99');
  if (lease) line(lease, 'lease', 'lease');
  root.setAttribute('data-p50', String(p50));
  root.setAttribute('data-p99', String(p99));
  if (lease) root.setAttribute('data-lease', String(lease));
  root.setAttribute('data-points', String(points.length));
  root.append(svg('text', { x: PAD.left + 4, y: PAD.top + 8, class: 'tick', text: 'max ' + millisText(max) }));
  root.append(svg('text', { x: PAD.left, y: H - 6, class: 'tick', text: points[0].label }));
  root.append(svg('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end', class: 'tick', text: points[points.length - 1].label }));
  return figure(title, root, 'p50 ' + millisText(p50) + ', p99 ' + millisText(p99) + (lease ? ', lease ' + millisText(lease) : '')
    + ', ' + points.length + ' windows');
}

/** Stacked counts per day: days [{day, counts: {STATUS: n}}], statuses in stacking order. */
export function outcomesChart(title, days, statuses) {
  const root = frame(title, 'outcomes');
  root.setAttribute('data-days', String(days.length));
  if (!days.length) return figure(title, root, 'no windows');
  const max = Math.max(1, ...days.map((d) => Object.values(d.counts).reduce((a, b) => a + b, 0)));
  const step = (W - PAD.left - PAD.right) / days.length;
  const bw = Math.max(2, Math.min(40, step * 0.7));
  const unit = (H - PAD.top - PAD.bottom) / max;
  days.forEach((d, i) => {
    let base = H - PAD.bottom;
    const x = PAD.left + i * step + (step - bw) / 2;
    const g = svg('g', { class: 'day', 'data-day': d.day });
    for (const s of statuses) {
      const n = d.counts[s] || 0;
      if (!n) continue;
      base -= n * unit;
      g.append(svg('rect', { x: x.toFixed(1), y: base.toFixed(1), width: bw.toFixed(1), height: (n * unit).toFixed(1),
        class: 'st-' + s, 'data-status': s, 'data-count': n }, svg('title', { text: d.day + ': ' + n + ' ' + s })));
    }
    root.append(g);
  });
  root.append(svg('text', { x: PAD.left - 4, y: PAD.top + 8, 'text-anchor': 'end', class: 'tick', text: num(max) }));
  root.append(svg('text', { x: PAD.left, y: H - 6, class: 'tick', text: days[0].day }));
  root.append(svg('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end', class: 'tick', text: days[days.length - 1].day }));
  return figure(title, root, days.length + (days.length === 1 ? ' day' : ' days') + ' (UTC)');
}

/** Bars of cost per day with the tokens in each bar's title: days [{day, cost, tokensIn, tokensOut}]. */
export function usageChart(title, days) {
  const root = frame(title, 'usage');
  root.setAttribute('data-days', String(days.length));
  const max = Math.max(...days.map((d) => d.cost), 0) || 1;
  const step = (W - PAD.left - PAD.right) / days.length;
  const bw = Math.max(2, Math.min(40, step * 0.7));
  days.forEach((d, i) => {
    const h = (d.cost / max) * (H - PAD.top - PAD.bottom);
    const x = PAD.left + i * step + (step - bw) / 2;
    root.append(svg('rect', { x: x.toFixed(1), y: (H - PAD.bottom - h).toFixed(1), width: bw.toFixed(1),
      height: Math.max(0.5, h).toFixed(1), class: 'bar usage-bar', 'data-day': d.day, 'data-cost': d.costText,
      'data-tokens-in': d.tokensIn, 'data-tokens-out': d.tokensOut },
    svg('title', { text: d.day + ': cost ' + d.costText + ', ' + d.tokensIn + ' in / ' + d.tokensOut + ' out tokens' })));
  });
  root.append(svg('text', { x: PAD.left - 4, y: PAD.top + 8, 'text-anchor': 'end', class: 'tick', text: num(max) }));
  root.append(svg('text', { x: PAD.left, y: H - 6, class: 'tick', text: days[0].day }));
  root.append(svg('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end', class: 'tick', text: days[days.length - 1].day }));
  const total = days.reduce((a, d) => a + d.cost, 0);
  return figure(title, root, 'cost ' + num(total) + ' over '
    + days.length + (days.length === 1 ? ' day' : ' days') + ' (UTC)');
}

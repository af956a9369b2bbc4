// Inline SVG charts of a task's windows, no library: every value is drawn from the HTTP API's JSON.

const NS = 'http://www.w3.org/2000/svg';
const W = 480;
const H = 200;
const PAD = { left: 74, right: 34, top: 12, bottom: 34 };

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

/** The frame: both axes, each with its title (what is measured, in which unit). */
function frame(title, cls, yTitle, xTitle) {
  const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart ' + cls, role: 'img', 'aria-label': title });
  root.append(svg('title', { text: title }));
  root.append(svg('line', { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: 'axis' }));
  root.append(svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: 'axis' }));
  const midY = (PAD.top + H - PAD.bottom) / 2;
  root.append(svg('text', { x: 10, y: midY, 'text-anchor': 'middle', class: 'axis-title y-title',
    transform: 'rotate(-90 10 ' + midY + ')', text: yTitle }));
  root.append(svg('text', { x: (PAD.left + W - PAD.right) / 2, y: H - 3, 'text-anchor': 'middle', class: 'axis-title x-title',
    text: xTitle }));
  return root;
}

function figure(title, root, note, legend) {
  const f = document.createElement('figure');
  f.className = 'chart-box';
  const cap = document.createElement('figcaption');
  cap.textContent = title + (note ? ' — ' + note : '');
  f.append(cap, root);
  if (legend) f.append(legend);
  return f;
}

/** Round durations for a log axis's ticks, in ms: 1 ms .. 1 d. */
const LOG_TICKS = [1, 10, 100, 1000, 10000, 60000, 600000, 3600000, 36000000, 86400000];

/** Whether values span decades: the largest at least 50 times the smallest above 0 (e.g. 100 ms and 30 min). */
export function spansDecades(values) {
  const positive = values.filter((v) => v > 0);
  if (positive.length < 2) return false;
  return Math.max(...positive) / Math.min(...positive) >= 50;
}

/** The y scale of a duration chart: value (ms) to y, and its ticks; log when the values span decades. */
function durationScale(values, extra) {
  const all = values.concat(extra ? [extra] : []);
  const max = Math.max(1, ...all);
  const top = PAD.top;
  const bottom = H - PAD.bottom;
  if (spansDecades(values)) {
    const lo = Math.max(1, Math.min(...all.filter((v) => v > 0)) / 2);
    const hi = max * 1.2;
    const span = Math.log10(hi) - Math.log10(lo);
    const y = (v) => bottom - ((Math.log10(Math.max(lo, v)) - Math.log10(lo)) / span) * (bottom - top);
    return { log: true, y, ticks: LOG_TICKS.filter((t) => t >= lo && t <= hi) };
  }
  const y = (v) => bottom - (v / max) * (bottom - top);
  return { log: false, y, ticks: [0, max / 2, max] };
}

/**
 * A bar per window (oldest left) of a duration in ms, with p50 and p99 lines and, when given, a lease line;
 * a log y axis when the values span decades (so a 100 ms run and a 30 min one both show). points: [{label,
 * value}]; returns a <figure> whose svg has class `cls` and data-p50/-p99/-scale attributes. left: what was
 * left out of the chart and why, for its caption (or null).
 */
export function durationChart(title, cls, points, lease, yTitle, left) {
  const values = points.map((p) => p.value);
  const p50 = quantile(values, 0.5);
  const p99 = quantile(values, 0.99);
  const scale = durationScale(values, lease);
  const root = frame(title, cls, yTitle + (scale.log ? ' (log scale)' : ''), 'window, oldest → newest');
  root.setAttribute('data-scale', scale.log ? 'log' : 'linear');
  root.setAttribute('data-points', String(points.length));
  if (!points.length) {
    root.append(svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'empty-text', text: 'no window to show' }));
    return figure(title, root, left);
  }
  const y = scale.y;
  for (const t of scale.ticks) {
    root.append(svg('line', { x1: PAD.left - 3, x2: PAD.left, y1: y(t).toFixed(1), y2: y(t).toFixed(1), class: 'axis' }));
    root.append(svg('text', { x: PAD.left - 5, y: (y(t) + 4).toFixed(1), 'text-anchor': 'end', class: 'tick y-tick',
      text: millisText(t) }));
  }
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
    root.append(svg('text', { x: W - PAD.right + 3, y: (y(v) + 4).toFixed(1), class: 'ref-label ' + c, text: name }));
  };
  line(p50, 'p50', 'p50');
  line(p99, 'p99', 'p99');
  if (lease) line(lease, 'lease', 'lease');
  root.setAttribute('data-p50', String(p50));
  root.setAttribute('data-p99', String(p99));
  if (lease) root.setAttribute('data-lease', String(lease));
  root.append(svg('text', { x: PAD.left, y: H - PAD.bottom + 12, class: 'tick', text: points[0].label }));
  root.append(svg('text', { x: W - PAD.right, y: H - PAD.bottom + 12, 'text-anchor': 'end', class: 'tick',
    text: points[points.length - 1].label }));
  return figure(title, root, 'p50 ' + millisText(p50) + ', p99 ' + millisText(p99) + (lease ? ', lease ' + millisText(lease) : '')
    + ', ' + points.length + ' windows' + (left ? '; ' + left : ''));
}

/** Stacked counts per day: days [{day, counts: {STATUS: n}}], statuses in stacking order; a legend of the statuses drawn. */
export function outcomesChart(title, days, statuses) {
  const root = frame(title, 'outcomes', 'windows per day', 'day of the window\'s start (UTC)');
  root.setAttribute('data-days', String(days.length));
  if (!days.length) return figure(title, root, 'no windows');
  const max = Math.max(1, ...days.map((d) => Object.values(d.counts).reduce((a, b) => a + b, 0)));
  const step = (W - PAD.left - PAD.right) / days.length;
  const bw = Math.max(2, Math.min(40, step * 0.7));
  const unit = (H - PAD.top - PAD.bottom) / max;
  const totals = {};
  days.forEach((d, i) => {
    let base = H - PAD.bottom;
    const x = PAD.left + i * step + (step - bw) / 2;
    const g = svg('g', { class: 'day', 'data-day': d.day });
    for (const s of statuses) {
      const n = d.counts[s] || 0;
      if (!n) continue;
      totals[s] = (totals[s] || 0) + n;
      base -= n * unit;
      g.append(svg('rect', { x: x.toFixed(1), y: base.toFixed(1), width: bw.toFixed(1), height: (n * unit).toFixed(1),
        class: 'st-' + s, 'data-status': s, 'data-count': n }, svg('title', { text: d.day + ': ' + n + ' ' + s })));
    }
    root.append(g);
  });
  for (const t of [0, max]) {
    const yt = H - PAD.bottom - t * unit;
    root.append(svg('text', { x: PAD.left - 5, y: (yt + 4).toFixed(1), 'text-anchor': 'end', class: 'tick y-tick', text: num(t) }));
  }
  root.append(svg('text', { x: PAD.left, y: H - PAD.bottom + 12, class: 'tick', text: days[0].day }));
  root.append(svg('text', { x: W - PAD.right, y: H - PAD.bottom + 12, 'text-anchor': 'end', class: 'tick',
    text: days[days.length - 1].day }));
  const legend = document.createElement('ul');
  legend.className = 'chart-legend';
  for (const s of statuses.filter((st) => totals[st])) {
    const li = document.createElement('li');
    li.dataset.status = s;
    const key = document.createElement('i');
    key.className = 'st-' + s;
    li.append(key, s + ' ' + totals[s]);
    legend.append(li);
  }
  return figure(title, root, days.length + (days.length === 1 ? ' day' : ' days') + ' (UTC)', legend);
}

/** Bars of cost per day with the tokens in each bar's title: days [{day, cost, tokensIn, tokensOut}]. */
export function usageChart(title, days) {
  const root = frame(title, 'usage', 'cost per day', 'day (UTC)');
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
  root.append(svg('text', { x: PAD.left - 5, y: PAD.top + 8, 'text-anchor': 'end', class: 'tick', text: num(max) }));
  root.append(svg('text', { x: PAD.left, y: H - PAD.bottom + 12, class: 'tick', text: days[0].day }));
  root.append(svg('text', { x: W - PAD.right, y: H - PAD.bottom + 12, 'text-anchor': 'end', class: 'tick',
    text: days[days.length - 1].day }));
  const total = days.reduce((a, d) => a + d.cost, 0);
  return figure(title, root, 'cost ' + num(total) + ' over '
    + days.length + (days.length === 1 ? ' day' : ' days') + ' (UTC)');
}

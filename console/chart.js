// @ts-check
/**
 * A small SVG chart drawn by the console itself (no library, nothing fetched from elsewhere): stacked bars of
 * actions per hour by outcome. Colours come from style.css classes (`.bar-succeeded`, …), sizes are SVG attributes
 * (not style attributes, which the CSP forbids); every text goes in through textContent.
 */
const SVG = 'http://www.w3.org/2000/svg';
/** @typedef {'succeeded' | 'failed' | 'skipped'} Outcome */
/** @type {Outcome[]} */
export const SERIES = ['succeeded', 'failed', 'skipped'];

/** An hour of the overview's chart, as `GET /api/overview` answers it. @typedef {{ hour: string } & Partial<Record<Outcome, number | string>>} Bucket */

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {string} [text]
 */
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A round upper bound for the y axis, four whole steps of 1, 2, 3 or 5 × 10^n. */
/** @param {number} n */
function niceMax(n) {
  if (n <= 4) return 4;
  const raw = n / 4;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 3, 5, 10]) if (m * p >= raw) return 4 * Math.max(1, Math.round(m * p));
  return 40 * p;
}

/** @param {number} n */
const pad = (n) => (n < 10 ? '0' + n : String(n));

/** `hh:00`, or `dd/mm` at midnight when the buckets span several days. */
/**
 * @param {string} iso
 * @param {boolean} days
 */
function hourLabel(iso, days) {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return String(iso);
  return days && d.getHours() === 0 ? pad(d.getDate()) + '/' + pad(d.getMonth() + 1) : pad(d.getHours()) + ':00';
}

/**
 * Stacked bars, one per bucket `{hour, succeeded, failed, skipped}`; a legend under it. The bars' titles give the
 * numbers on hover, and the chart is described for screen readers.
 */
/** @param {Bucket[]} buckets */
export function barChart(buckets) {
  const W = 960;
  const H = 220;
  const left = 40;
  const bottom = 24;
  const top = 8;
  const plotW = W - left - 8;
  const plotH = H - top - bottom;
  const totals = buckets.map((b) => SERIES.reduce((s, k) => s + (Number(b[k]) || 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img' });
  const sum = totals.reduce((a, b) => a + b, 0);
  root.appendChild(svg('title', {}, 'Actions per hour by outcome: ' + sum + ' in ' + buckets.length + ' hours'));

  for (let i = 0; i <= 4; i++) {
    const y = top + plotH - (plotH * i) / 4;
    root.appendChild(svg('line', { x1: left, x2: W - 8, y1: y, y2: y, class: i === 0 ? 'axis' : 'grid' }));
    root.appendChild(svg('text', { x: left - 6, y: y + 4, class: 'tick', 'text-anchor': 'end' }, String(Math.round((max * i) / 4))));
  }
  const n = Math.max(1, buckets.length);
  const slot = plotW / n;
  const barW = Math.max(1, slot * 0.72);
  const days = buckets.length > 30;
  const every = Math.ceil(n / 12);
  buckets.forEach((b, i) => {
    const x = left + i * slot + (slot - barW) / 2;
    let y = top + plotH;
    const group = svg('g', { class: 'bar' });
    const parts = [];
    for (const k of SERIES) {
      const v = Number(b[k]) || 0;
      parts.push(k + ' ' + v);
      if (v <= 0) continue;
      const h = (plotH * v) / max;
      y -= h;
      group.appendChild(svg('rect', { x: x.toFixed(1), y: y.toFixed(1), width: barW.toFixed(1), height: h.toFixed(1), class: 'bar-' + k }));
    }
    group.appendChild(svg('title', {}, hourLabel(b.hour, false) + ' (' + String(b.hour) + '): ' + parts.join(', ')));
    // A transparent full-height target, so an empty hour still has a tooltip.
    group.insertBefore(svg('rect', { x: (left + i * slot).toFixed(1), y: top, width: slot.toFixed(1), height: plotH, class: 'bar-hit' }), group.firstChild);
    root.appendChild(group);
    // Over several days, one label per day (at local midnight, as dd/mm); else every few hours.
    if (days ? new Date(b.hour).getHours() === 0 : i % every === 0)
      root.appendChild(svg('text', { x: (x + barW / 2).toFixed(1), y: H - 6, class: 'tick', 'text-anchor': 'middle' }, hourLabel(b.hour, days)));
  });

  const figure = document.createElement('figure');
  figure.className = 'chart-figure';
  figure.appendChild(root);
  const legend = document.createElement('figcaption');
  legend.className = 'legend';
  for (const k of SERIES) {
    const item = document.createElement('span');
    item.className = 'legend-' + k;
    item.textContent = k + ' ' + buckets.reduce((s, b) => s + (Number(b[k]) || 0), 0);
    legend.appendChild(item);
  }
  figure.appendChild(legend);
  return figure;
}

/**
 * Bars of an amount per day (`{day: 'YYYY-MM-DD', approved, amount}`): the funnel's approved amounts. Titles give each
 * day's count and amount on hover.
 * @param {Array<{ day: string, approved: number, amount: string }>} days
 */
export function amountChart(days) {
  const W = 960;
  const H = 180;
  const left = 64;
  const bottom = 24;
  const top = 8;
  const plotW = W - left - 8;
  const plotH = H - top - bottom;
  const values = days.map((d) => Number(d.amount) || 0);
  const max = niceMax(Math.max(0, ...values));
  const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart amount-chart', role: 'img' });
  const total = values.reduce((a, b) => a + b, 0);
  root.appendChild(svg('title', {}, 'Approved amounts per day: ' + total.toFixed(2) + ' in ' + days.length + ' days'));
  for (let i = 0; i <= 4; i++) {
    const y = top + plotH - (plotH * i) / 4;
    root.appendChild(svg('line', { x1: left, x2: W - 8, y1: y, y2: y, class: i === 0 ? 'axis' : 'grid' }));
    root.appendChild(svg('text', { x: left - 6, y: y + 4, class: 'tick', 'text-anchor': 'end' }, Math.round((max * i) / 4).toLocaleString()));
  }
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(1, Math.min(48, slot * 0.72));
  const every = Math.ceil(days.length / 12);
  days.forEach((d, i) => {
    const x = left + i * slot + (slot - barW) / 2;
    const group = svg('g', { class: 'bar' });
    group.appendChild(svg('rect', { x: (left + i * slot).toFixed(1), y: top, width: slot.toFixed(1), height: plotH, class: 'bar-hit' }));
    const h = (plotH * values[i]) / max;
    if (h > 0)
      group.appendChild(svg('rect', { x: x.toFixed(1), y: (top + plotH - h).toFixed(1), width: barW.toFixed(1), height: h.toFixed(1), class: 'bar-approved' }));
    group.appendChild(
      svg('title', {}, d.day + ': ' + d.approved + ' approved, ' + (Number(d.amount) || 0).toLocaleString(undefined, { minimumFractionDigits: 2 })),
    );
    root.appendChild(group);
    if (i % every === 0)
      root.appendChild(
        svg('text', { x: (x + barW / 2).toFixed(1), y: H - 6, class: 'tick', 'text-anchor': 'middle' }, d.day.slice(8, 10) + '/' + d.day.slice(5, 7)),
      );
  });
  const figure = document.createElement('figure');
  figure.className = 'chart-figure';
  figure.appendChild(root);
  return figure;
}

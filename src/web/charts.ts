import type { HourlySeries } from '../journal/hourly-stats.js';
import { html, type Html } from './html.js';

/**
 * The status page's small charts: inline SVG drawn here, no script and no library. Each says in
 * words what it shows (its title, read by screen readers and shown on hover) and colours come
 * from the page's style sheet (classes), so both colour schemes keep their contrast.
 */

/** "08:00" of an hour's start, box time. */
function hourLabel(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:00`;
}

/** A round top for the y axis: 1, 2, 5, 10, 20, 50... at least `max`. */
function niceTop(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

const W = 480;
const H = 132;
const LEFT = 40;
const RIGHT = 6;
const TOP = 8;
const BOTTOM = 22;

/** One layer of a stacked bar chart: its figures per hour and its colour class. */
interface Layer {
  name: string;
  values: readonly (number | null)[];
  cls: string;
}

/** A bar chart over the hours of `hours` (stacked layers), with its axes and a title in words. */
function barChart(id: string, title: string, hours: readonly number[], layers: readonly Layer[]): Html {
  const n = hours.length;
  const totals = hours.map((_, i) => layers.reduce((s, l) => s + (l.values[i] ?? 0), 0));
  const top = niceTop(Math.max(0, ...totals));
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const slot = plotW / n;
  const barW = Math.max(1, slot - 2);
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  const bars: Html[] = [];
  hours.forEach((_, i) => {
    let base = 0;
    for (const l of layers) {
      const v = l.values[i] ?? 0;
      if (v <= 0) continue;
      const h = Math.max(1, (v / top) * plotH);
      bars.push(
        html`<rect
          class="${l.cls}"
          x="${(LEFT + i * slot + 1).toFixed(1)}"
          y="${(y(base) - h).toFixed(1)}"
          width="${barW.toFixed(1)}"
          height="${h.toFixed(1)}"
          ><title>${hourLabel(hours[i]!)}: ${v} ${l.name}</title></rect
        >`,
      );
      base += v;
    }
  });
  const ticks = [0, 6, 12, 18, n - 1].filter((i) => i < n);
  return html`<svg class="chart" id="${id}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-title">
    <title id="${id}-title">${title}</title>
    <line class="axis" x1="${LEFT}" y1="${TOP + plotH}" x2="${W - RIGHT}" y2="${TOP + plotH}"></line>
    <line class="grid" x1="${LEFT}" y1="${TOP}" x2="${W - RIGHT}" y2="${TOP}"></line>
    <text class="label" x="${LEFT - 4}" y="${TOP + 4}" text-anchor="end">${top}</text>
    <text class="label" x="${LEFT - 4}" y="${TOP + plotH}" text-anchor="end">0</text>
    ${ticks.map((i) => html`<text class="label" x="${(LEFT + i * slot + slot / 2).toFixed(1)}" y="${H - 6}" text-anchor="middle">${hourLabel(hours[i]!)}</text>`)}
    ${bars}
  </svg>`;
}

/** "1,234" */
const num = (n: number) => n.toLocaleString('en-US');
const sum = (xs: readonly (number | null)[]) => xs.reduce<number>((s, x) => s + (x ?? 0), 0);

/** The chart of the queue: the most punches waiting in each hour. */
export function queueChart(s: HourlySeries): Html {
  const seen = s.queueMax.filter((v): v is number => v !== null);
  const most = seen.length ? Math.max(...seen) : 0;
  const title = seen.length
    ? `Punches waiting to be sent, the most in each hour of the last 24 h: at most ${num(most)}${s.queueMax.at(-1) !== null ? `, ${num(s.queueMax.at(-1)!)} this hour` : ''}`
    : 'Punches waiting to be sent: no sample in the last 24 h yet';
  return html`<figure>
    ${barChart('chart-queue', title, s.hours, [{ name: 'waiting at most', values: s.queueMax, cls: 'bar-queue' }])}
    <figcaption>${title}.</figcaption>
  </figure>`;
}

/** Delivery per hour: punches taken, punches refused, requests that failed as a whole. */
export function deliveryChart(s: HourlySeries): Html {
  const delivered = sum(s.delivered);
  const refused = sum(s.refused);
  const failed = sum(s.failedRequests);
  const title = `Delivery per hour over the last 24 h: ${num(delivered)} punches delivered, ${num(refused)} refused by the HRMS, ${num(failed)} requests failed`;
  return html`<figure>
    ${barChart('chart-delivery', title, s.hours, [
      { name: 'punches delivered', values: s.delivered, cls: 'bar-ok' },
      { name: 'punches refused', values: s.refused, cls: 'bar-warn' },
      { name: 'requests failed', values: s.failedRequests, cls: 'bar-bad' },
    ])}
    <figcaption>
      <span class="key key-ok"></span> delivered ${num(delivered)} &middot; <span class="key key-warn"></span> refused
      ${num(refused)} &middot; <span class="key key-bad"></span> failed requests ${num(failed)} (last 24 h)
    </figcaption>
  </figure>`;
}

/** A terminal's punches per hour over the last 24 h, as a small bar line for its row. */
export function terminalSparkline(name: string, s: HourlySeries): Html {
  const values = s.punchesByTerminal.get(name) ?? s.hours.map(() => 0);
  const total = sum(values);
  const most = Math.max(0, ...values);
  const top = niceTop(most);
  const w = 96;
  const h = 22;
  const slot = w / values.length;
  const title = `${name}: ${num(total)} punches journalled in the last 24 h${total ? `, at most ${num(most)} in an hour` : ''}`;
  return html`<svg class="spark" viewBox="0 0 ${w} ${h}" role="img" aria-label="${title}">
      <title>${title}</title>
      <line class="axis" x1="0" y1="${h - 0.5}" x2="${w}" y2="${h - 0.5}"></line>
      ${values.map((v, i) =>
        v > 0
          ? html`<rect
              class="bar-queue"
              x="${(i * slot + 0.5).toFixed(1)}"
              y="${(h - 1 - Math.max(1, (v / top) * (h - 2))).toFixed(1)}"
              width="${Math.max(1, slot - 1).toFixed(1)}"
              height="${Math.max(1, (v / top) * (h - 2)).toFixed(1)}"
            ></rect>`
          : '',
      )}
    </svg>
    <span class="muted small">${num(total)}</span>`;
}

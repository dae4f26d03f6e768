import { createHash } from 'node:crypto';
import { cannotStart } from '../delivery/cannot-start.js';
import { credentialTrouble } from '../delivery/credential-trouble.js';
import type { HourlySeries } from '../journal/hourly-stats.js';
import { seconds, span, type Alert } from '../status/alert-words.js';
import { credentialLabel } from '../status/credential-words.js';
import { removedTerminalWords } from '../status/removed-terminals.js';
import { importedApartFacts, importedApartWords } from '../status/imported-apart.js';
import type { ImportedApartStatus } from '../status/types.js';
import {
  failingWords,
  notAlertedYet,
  notWellYet,
  resultPlace,
  terminalShown,
  type BackupStatus,
  type ConfigStatus,
  type StatusReport,
  type TerminalStatus,
} from '../status/index.js';
import { deliveryChart, queueChart, terminalSparkline } from './charts.js';
import { Html, html, withCommands } from './html.js';
import { localTime } from '../util/local-time.js';
import { lastActivityHeading, lastActivityLabel } from '../status/activity-words.js';

export interface PageInfo {
  version: string;
  /** Seconds since `punchgate run` started. */
  uptimeSeconds: number;
  /** "Europe/Berlin, UTC+01:00": the zone every time on the page is in. */
  zone: string;
  refreshSeconds: number;
}

/**
 * The page's only style sheet, inline (no asset from anywhere), allowed by its hash in the CSP; ours,
 * so not escaped. Every text colour meets WCAG AA (4.5:1) against the background it sits on, in the
 * light and the dark scheme, and chart bars 3:1 (test/web/contrast-browser.test.ts measures them).
 */
const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#57606a;--ok:#1a7f37;--bad:#b42318;--warn:#8a4b00;
--accent:#0b5cad;--line:#d0d7de;--alert-bg:#fdeceb;--fix:#1f2328;--badge-ok:#1a7f37;--badge-bad:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--ok:#3fb950;--bad:#ff7b72;
--warn:#d29922;--accent:#58a6ff;--line:#30363d;--alert-bg:#2b1416;--fix:#e6edf3}}
*{box-sizing:border-box}
html{background:var(--bg)}
body{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:64rem;padding:1rem;background:var(--bg);color:var(--fg)}
h1{font-size:1.4rem;margin:0}h2{font-size:1.1rem;margin:1.5rem 0 .5rem;border-bottom:1px solid var(--line)}
.sub,.muted{color:var(--muted)}.sub{margin:.2rem 0 0}.small{font-size:.85rem}
p.verdict{display:inline-block;margin:.6rem 0 0;padding:.3rem .7rem;border-radius:.4rem;font-weight:600;color:#fff}
p.verdict.ok{background:var(--badge-ok)}p.verdict.bad{background:var(--badge-bad)}
ul.alerts{padding:0;list-style:none;margin:0}
ul.alerts li{border-left:4px solid var(--bad);padding:.4rem .6rem;margin:.3rem 0;background:var(--alert-bg);overflow-wrap:anywhere}
.cause{font-weight:600}.fix{display:block;color:var(--fix)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
td.name{overflow-wrap:anywhere;min-width:9rem}
td.num,th.num{text-align:right}
.online{color:var(--ok);font-weight:600}.offline{color:var(--bad);font-weight:600}.unknown{color:var(--muted)}
.stale,.waiting{color:var(--muted)}
.err{overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.bad{color:var(--bad);font-weight:600}
code{font-size:.95em}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
figure{margin:0}figcaption{font-size:.9rem;color:var(--muted);margin-top:.2rem}
svg.chart{width:100%;height:auto;display:block}svg.spark{width:6rem;height:1.4rem;vertical-align:middle}
svg .label{fill:var(--muted);font-size:11px}svg .axis{stroke:var(--muted);stroke-width:1}svg .grid{stroke:var(--line);stroke-width:1}
.bar-ok{fill:var(--ok)}.bar-bad{fill:var(--bad)}.bar-warn{fill:var(--warn)}.bar-queue{fill:var(--accent)}
.key{display:inline-block;width:.8em;height:.8em;vertical-align:baseline}.key-ok{background:var(--ok)}.key-bad{background:var(--bad)}.key-warn{background:var(--warn)}
footer{margin-top:2rem;font-size:.9rem}
footer a{color:inherit}
@media (max-width:60rem){
 table,thead,tbody,tr,td{display:block}thead{display:none}
 tr{border:1px solid var(--line);border-radius:.4rem;margin:.5rem 0;padding:.3rem .5rem}
 td{border:0;padding:.15rem 0;text-align:left!important}
 td[data-label]::before{content:attr(data-label) ": ";color:var(--muted)}
 td:empty{display:none}
}`;

/** One value, so that formatting the template around it can never change the hashed text. */
const STYLE_ELEMENT = new Html(`<style>${STYLE}</style>`);

/** The Content-Security-Policy of the page: nothing but its own inline style (no script at all). */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A time of the report with how long ago it was, or `never`. */
function when(iso: string | null, now: number): Html {
  if (!iso) return html`<span class="muted">never</span>`;
  const ms = Date.parse(iso);
  const ago = now - ms;
  const rel = ago < 60_000 && ago >= 0 ? 'just now' : ago >= 0 ? `${span(ago)} ago` : 'in the future';
  return html`<time datetime="${iso}">${localTime(ms)}</time> <span class="muted">(${rel})</span>`;
}

/** The last backup `punchgate backup` recorded (status/backup.ts), as `punchgate status` says it. */
function backupSection(b: BackupStatus, now: number): Html {
  const last = b.unreadable
    ? html`not known: ${b.unreadable}`
    : b.lastAt
      ? html`${when(b.lastAt, now)}, ${b.path ?? ''} (${(b.punches ?? 0).toLocaleString('en-US')} punches)`
      : html`<span class="muted">none recorded on this box</span>`;
  return html`<section id="backup">
    <h2>Backup</h2>
    <dl>
      <dt>last backup</dt>
      <dd id="last-backup">${last}</dd>
    </dl>
  </section>`;
}

/** A time to come (the next try) with how soon: "(in 25 s)", "(in 5 min)"; one already past is "due now". */
function whenNext(iso: string, now: number): Html {
  const ms = Date.parse(iso);
  const rel = ms > now ? `in ${seconds(ms - now)}` : 'due now';
  return html`<time datetime="${iso}">${localTime(ms)}</time> <span class="muted">(${rel})</span>`;
}

function uptime(seconds: number): string {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return m > 0 ? `${m} min` : `${s} s`;
}

function terminalRow(t: TerminalStatus, now: number, charts: HourlySeries | undefined): Html {
  const shown = terminalShown(t);
  const state =
    shown === 'not contacted yet'
      ? html`<span class="unknown">not contacted yet</span>`
      : shown === 'online'
        ? html`<span class="online">online</span>`
        : html`<span class="offline">${shown}</span>`;
  // A problem in words with what to try; the protocol detail is in the log. A state to wait out
  // (a push terminal's first call) is no error: said plainly, without the error's weight or "Fix:".
  const result =
    t.lastPollAt === null && !t.problem
      ? ''
      : t.problem?.waiting
        ? html`<span class="waiting">${t.problem.cause}: ${t.problem.fix}</span>`
        : t.problem
          ? html`<span class="err cause">${t.problem.cause}</span><span class="fix">Fix: ${t.problem.fix}</span>`
          : html`ok`;
  const skew = t.skewSeconds === null ? '' : `${t.skewSeconds >= 0 ? '+' : ''}${Math.round(t.skewSeconds)} s`;
  // Offline: its figures are those of its last answer, shown as such.
  const figure = (v: string | number | null) =>
    v === null || v === ''
      ? ''
      : t.stale
        ? html`<span class="stale" title="as of its last answer">${v}*</span>`
        : html`${v}`;
  return html`<tr>
    <td data-label="terminal" class="name">
      <strong>${t.name}</strong>
      <span class="muted"
        >${t.kind}${t.serial ? ` · ${t.serial}` : ''}${t.direction ? ` · direction ${t.direction}` : ''}</span
      >
      ${pushFacts(t)}${behindServer(t)}
    </td>
    <td data-label="state">${state}</td>
    <td data-label="last contact">${when(t.lastSuccessAt, now)}</td>
    <td data-label="${lastActivityLabel(t.kind)}">${t.lastPollAt === null ? '' : when(t.lastPollAt, now)}</td>
    <td data-label="last result">${result}</td>
    <td data-label="clock" class="num">${figure(skew)}</td>
    <td data-label="records" class="num">${figure(t.records)}</td>
    <td data-label="users" class="num">${figure(t.users)}</td>
    <td data-label="punches, 24 h">${charts ? terminalSparkline(t.name, charts) : ''}</td>
  </tr>`;
}

/**
 * The punches imported apart from every terminal, a row of their own under the terminals': no
 * terminal's row counts them, and the column of punches in 24 h fell short of what was delivered.
 */
function importedApartRow(t: ImportedApartStatus, charts: HourlySeries | undefined): Html {
  return html`<tr class="imported-apart">
    <td data-label="terminal" class="name">
      <strong>${t.name}</strong>
      <span class="muted">imported apart</span>
    </td>
    <td data-label="punches" colspan="7">${importedApartFacts(t)}</td>
    <td data-label="punches, 24 h">${charts ? terminalSparkline(t.name, charts) : ''}</td>
  </tr>`;
}

/**
 * A BioTime server's terminals: each a device of its own (serial, name and area as the server calls them).
 * The arrow and the dots of html`...` text are HTML entities: the bundler leaves a tagged
 * template's characters as written, and one beyond ASCII doubles the memory Node keeps the
 * bundle's source in (rolldown.config.ts).
 */
function behindServer(t: TerminalStatus): Html | string {
  if (!t.devices?.length) return '';
  return html`${t.devices.map(
    (d) =>
      html`<br /><span class="muted"
          >&#x21b3; ${d.serial}${d.alias ? ` · ${d.alias}` : ''}${d.area ? ` · ${d.area}` : ''} &middot; last punch
          ${d.lastPunch || '-'}</span
        >`,
  )}`;
}

/**
 * A push terminal's protocol and what it said about itself: model and firmware, what a site
 * admin looks for (its last contact is the row's). The capacities a Security PUSH terminal
 * announces (a dozen `MaxUserCount 10000`...) buried its name: they stay in `status --json`
 * and `punchgate terminals`.
 */
function pushFacts(t: TerminalStatus): Html | string {
  const p = t.push;
  if (!p?.protocol) return '';
  const d = p.device;
  const facts = [
    p.protocol === 'security' ? 'Security PUSH' : 'attendance protocol',
    ...(d?.model ? [d.model] : []),
    ...(d?.firmware ? [`firmware ${d.firmware}`] : []),
  ];
  return html`<br /><span class="muted">${facts.join(' · ')}</span>`;
}

function count(n: number, alarming: boolean): Html {
  return alarming && n > 0 ? html`<span class="bad">${n}</span>` : html`${n}`;
}

/**
 * Punches never meant for this sink (their terminal's sinks: leaves it out), said apart from the
 * delivered ones, which they are not (journal's not-routed.ts). Nothing when there are none.
 */
function notRoutedRows(p: { notRouted?: number }, id: string): Html | string {
  const n = p.notRouted ?? 0;
  return n > 0
    ? html`<dt>not for this sink (not sent: their terminal's sinks: leaves it out)</dt>
        <dd id="${id}">${n}</dd>`
    : '';
}

function alertItem(a: Alert): Html {
  return html`<li data-kind="${a.kind}">
    <span class="cause">${withCommands(a.cause)}</span><span class="fix">Fix: ${withCommands(a.fix)}</span>
  </li>`;
}

/** A sink other than the default (issue 32): its queue and delivery, as the default sink's sections say them. */
function sinkSection(s: NonNullable<StatusReport['sinks']>[number], now: number): Html {
  const p = s.punches;
  return html`<section id="sink-${s.name}" class="sink">
    <h2>Sink ${s.name} <span class="muted">(${s.kind})</span></h2>
    <dl>
      <dt>waiting to be sent</dt>
      <dd id="sink-${s.name}-pending">${p.pending}</dd>
      <dt>being sent now</dt>
      <dd>${p.inflight}</dd>
      <dt>refused (retried later)</dt>
      <dd>${count(p.rejected, true)}</dd>
      <dt>dead (given up, kept)</dt>
      <dd>${count(p.dead, true)}</dd>
      <dt>quarantined (implausible time)</dt>
      <dd id="sink-${s.name}-quarantined">${count(p.quarantined, true)}</dd>
      <dt>delivered (kept in the journal)</dt>
      <dd>${p.delivered}</dd>
      ${notRoutedRows(p, `sink-${s.name}-not-routed`)} ${deliveryRows(s.delivery, now, s.name)}
    </dl>
  </section>`;
}

function deliveryRows(d: StatusReport['delivery'], now: number, sink?: string): Html {
  const noToken = credentialTrouble(d) === 'none';
  const place = resultPlace(d);
  // No loop runs for a sink that cannot start: no next try, and a flush would not build it either.
  const unbuilt = cannotStart({
    failingSince: d.failingSince ? Date.parse(d.failingSince) : null,
    lastError: d.lastError,
  });
  // The sink's own words: Odoo refuses an API key, Frappe a key and secret; only the seed HRMS has a token.
  const c = d.credential;
  const what = c?.what ?? 'token';
  const refuses = !c || c.hrmsBlock ? 'the HRMS refuses the token' : `${c.who} refuses the ${what} (${c.place})`;
  const auth =
    d.auth === 'failed'
      ? html`<span class="bad"
          >${noToken ? `NO ${what.toUpperCase()}: nothing can be sent` : `AUTH FAILED: ${refuses}`}</span
        >`
      : unbuilt
        ? html`<span class="bad"
            >CANNOT START since ${when(d.failingSince, now)}: nothing is sent (see the last error)</span
          >`
        : d.failingSince
          ? html`<span class="bad">FAILING since ${when(d.failingSince, now)}${failingWords(d.lastError)}</span>`
          : d.auth === 'ok'
            ? html`${what} accepted, delivering`
            : html`<span class="muted">not tried yet</span>`;
  return html`<dt>${sink === undefined ? credentialLabel(c) : 'state'}</dt>
    <dd id="${sink === undefined ? 'hrms' : `sink-${sink}-state`}">${auth}</dd>
    <dt>last success</dt>
    <dd>
      ${when(d.lastSuccessAt, now)}${d.lastResult && place === 'success' ? html` <span class="muted">${d.lastResult}</span>` : ''}
    </dd>
    <dt>last attempt</dt>
    <dd>
      ${when(d.lastAttemptAt, now)}${d.lastResult && place === 'attempt' ? html` <span class="muted">${d.lastResult}</span>` : ''}
    </dd>
    ${
      d.lastError
        ? html`<dt>last error</dt>
            <dd>
              ${when(d.lastErrorAt, now)}:
              <span class="err">${d.lastError}</span
              >${d.lastResult && place === 'error' ? html` <span class="muted">${d.lastResult}</span>` : ''}
            </dd>`
        : ''
    }
    ${
      d.failingSince && !unbuilt
        ? html`<dt>next try</dt>
            <dd id="${sink === undefined ? 'next-try' : `sink-${sink}-next-try`}">
              ${d.nextTryAt ? whenNext(d.nextTryAt, now) : html`<span class="muted">when punchgate run tries again</span>`}${
                d.probing ? html` <span class="muted">(the HRMS is asked every few seconds meanwhile)</span>` : ''
              }
            </dd>
            <dt>to try now</dt>
            <dd><code>sudo -u punchgate punchgate flush${sink === undefined ? '' : ` --sink ${sink}`}</code></dd>`
        : ''
    }`;
}

function configRows(c: ConfigStatus, now: number): Html {
  return html`<dt>runs on</dt>
    <dd id="config-running">
      ${
        c.runningOn === 'last-good'
          ? html`<span class="bad">the last good copy</span> ${c.lastGood ?? ''} (loaded ${when(c.loadedAt, now)} from
              ${c.file})`
          : html`${c.file}, loaded ${when(c.loadedAt, now)}`
      }
    </dd>
    ${
      c.restartPending?.length
        ? html`<dt>waiting for a restart</dt>
            <dd id="config-restart-pending">
              <span class="bad">${c.restartPending.join(', ')}</span>: the reload could not apply them (sudo systemctl
              restart punchgate)
            </dd>`
        : ''
    }
    ${
      c.fallback?.deliveryHeld
        ? html`<dt>delivery</dt>
            <dd id="config-delivery-held"><span class="bad">held</span>: ${c.fallback.deliveryHeld}</dd>`
        : ''
    }
    ${
      c.fallback?.notStarted.length
        ? html`<dt>not collected from</dt>
            <dd>${c.fallback.notStarted.map((t) => `${t.name} (${t.why})`).join('; ')}</dd>`
        : ''
    }
    ${
      c.failure
        ? html`<dt>the file</dt>
            <dd>
              <span class="bad">does not load</span> since ${when(c.failure.since, now)}:
              ${c.failure.problems.join('; ')}
            </dd>`
        : ''
    }`;
}

/** "3 alerts", and what no alert says yet beside them (summary.ts notAlertedYet). */
const alertCount = (n: number, notYet: readonly string[]) =>
  `${n} ${n === 1 ? 'alert' : 'alerts'}${notYet.length > 0 ? `; also not well (no alert yet): ${notYet.join('; ')}` : ''}`;

/** The status page: what `punchgate status` shows, for a browser (a phone too), without any script. */
export function renderPage(r: StatusReport, info: PageInfo, charts?: HourlySeries): string {
  const now = Date.parse(r.generatedAt);
  const p = r.punches;
  const items: Alert[] = r.alertItems ?? r.alerts.map((a) => ({ kind: 'alert', cause: a, fix: '' }));
  // Never "All good" above a row that says OFFLINE or FAILING (summary.ts).
  const notWell = items.length === 0 ? notWellYet(r) : notAlertedYet(r);
  const verdict =
    items.length > 0
      ? html`<p class="verdict bad">${alertCount(items.length, notWell)}</p>`
      : notWell.length > 0
        ? html`<p class="verdict bad">Not all well (no alert yet): ${notWell.join('; ')}</p>`
        : html`<p class="verdict ok">All good: no alerts</p>`;
  const oldest = r.oldestPending;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="refresh" content="${info.refreshSeconds}" />
        <title>${items.length ? `(${items.length}) ` : ''}punchgate ${r.site}</title>
        <link rel="icon" href="data:," />
        ${STYLE_ELEMENT}
      </head>
      <body>
        <header>
          <h1>punchgate &middot; site ${r.site}</h1>
          <p class="sub">
            Box time ${localTime(now)} (${info.zone}): every time on this page is box time. The page reloads itself
            every ${info.refreshSeconds} s.
          </p>
          ${verdict}
        </header>
        <section id="alerts">
          <h2>Alerts</h2>
          ${
            items.length === 0
              ? html`<p class="muted">${notWell.length > 0 ? 'No alerts yet.' : 'No alerts.'}</p>`
              : html`<ul class="alerts">
                  ${items.map(alertItem)}
                </ul>`
          }
        </section>
        <section id="terminals">
          <h2>Terminals</h2>
          ${
            r.terminals.length === 0
              ? html`<p class="muted">No terminal configured.</p>`
              : html`<table>
                    <thead>
                      <tr>
                        <th>terminal</th>
                        <th>state</th>
                        <th>last contact</th>
                        <th>${lastActivityHeading(r.terminals.map((t) => t.kind))}</th>
                        <th>last result</th>
                        <th class="num">clock</th>
                        <th class="num">records</th>
                        <th class="num">users</th>
                        <th>punches, 24 h</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${r.terminals.map((t) => terminalRow(t, now, charts))}
                      ${r.importedApart ? importedApartRow(r.importedApart, charts) : ''}
                    </tbody>
                  </table>
                  ${
                    r.terminals.some((t) => t.stale)
                      ? html`<p class="muted small">
                          * as of the terminal's last answer (its last contact): it is offline.
                        </p>`
                      : ''
                  }`
          }
          ${(r.removedTerminals ?? []).map((t) => html`<p class="removed-terminal">${removedTerminalWords(t)}</p>`)}
          ${r.terminals.length === 0 && r.importedApart ? html`<p class="imported-apart">${importedApartWords(r.importedApart)}</p>` : ''}
        </section>
        ${
          charts
            ? html`<section id="charts">
                <h2>Last 24 hours</h2>
                <p class="muted small">
                  Counted at ${localTime(charts.countedAt)}, again each minute; the queue below was counted at
                  ${localTime(now)} (the status report, renewed every status interval), so the two may differ by the
                  punches that came or went in between.
                </p>
                <div class="charts">${queueChart(charts)} ${deliveryChart(charts)}</div>
              </section>`
            : ''
        }
        <section id="queue">
          <h2>Queue</h2>
          <dl>
            <dt>waiting to be sent</dt>
            <dd id="pending">${p.pending}</dd>
            <dt>being sent now</dt>
            <dd id="inflight">${p.inflight}</dd>
            <dt>oldest waiting punch</dt>
            <dd>
              ${oldest ? html`${oldest.logTime} from ${oldest.terminal}, waiting since ${when(oldest.queuedAt, now)}` : html`<span class="muted">none</span>`}
            </dd>
            <dt>refused by the HRMS (retried later)</dt>
            <dd id="rejected">${count(p.rejected, true)}</dd>
            <dt>dead (given up, kept)</dt>
            <dd id="dead">${count(p.dead, true)}</dd>
            <dt>quarantined (implausible time)</dt>
            <dd id="quarantined">${count(p.quarantined, true)}</dd>
            <dt>delivered (kept in the journal)</dt>
            <dd id="delivered">${p.delivered}</dd>
            ${notRoutedRows(p, 'not-routed')}
          </dl>
        </section>
        <section id="delivery">
          <h2>Delivery</h2>
          <dl>${deliveryRows(r.delivery, now)}</dl>
        </section>
        ${(r.sinks ?? []).filter((s) => !s.default).map((s) => sinkSection(s, now))}
        ${
          r.config
            ? html`<section id="config">
                <h2>Config</h2>
                <dl>${configRows(r.config, now)}</dl>
              </section>`
            : ''
        }
        ${r.backup ? backupSection(r.backup, now) : ''}
        <footer class="muted">
          punchgate ${info.version} &middot; up ${uptime(info.uptimeSeconds)} &middot;
          <a href="status.json">status.json</a> &middot;
          <a href="metrics">metrics</a>
        </footer>
      </body>
    </html> `;
  return page.text;
}

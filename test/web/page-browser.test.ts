import { afterEach, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/status/index.js';
import { punchTimes, spawnDaemon, startStack, statusUrl } from '../daemon/stack.js';
import { launchChromium } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';

const nextTime = punchTimes('2026-11-22', 10);

describe('the status page in a real browser', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('shows each terminal and the queue, reloads itself after new punches, on a phone, without JavaScript or console errors', async () => {
    // The second terminal's serial number carries markup: the page must show it as text.
    const stack = await startStack({
      terminals: 2,
      status: { refreshSeconds: 1 },
      serialNumbers: ['SN-GATE-1', 'SN-<i>2</i>'],
    });
    cleanups.push(() => stack.stop());
    const [a] = stack.terminals as [(typeof stack.terminals)[0]];
    for (let i = 0; i < 10; i++) a.addPunch({ userId: String(1000 + i), logTime: nextTime() });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    await waitFor(() => stack.hrms.attendance().length === 10, 15_000, 'first punches delivered');
    // A terminal's record (online, its serial) says it answered once its poll has ended, a little
    // after its punches are journalled and delivered (the poll waits for the disk sync); the page
    // shows the same report as /status.json, at least as recent.
    await waitFor(
      async () => {
        const r = (await (await fetch(`${url}status.json`)).json()) as StatusReport;
        return r.terminals.length === 2 && r.terminals.every((t) => t.online);
      },
      10_000,
      'both terminals online once their first poll ended',
    );

    const { context, close } = await launchChromium({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    cleanups.push(close);
    const page = context.pages()[0] ?? (await context.newPage());
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()} for ${r.url()}`));
    // What the page says after each load: the meta refresh reloads it, the test never does.
    let loads = 0;
    let delivered = '';
    page.on('load', () => {
      loads++;
      void page
        .textContent('#delivered')
        .then((t) => (delivered = t ?? ''))
        .catch(() => undefined);
    });

    await page.goto(url);
    const body = (await page.textContent('body')) ?? '';
    expect(body).toContain('site plant-t');
    for (const name of ['gate-1', 'gate-2']) expect(body).toContain(name);
    expect(await page.locator('#terminals tbody tr').count()).toBe(2);
    expect(await page.locator('#terminals tbody tr', { hasText: 'gate-1' }).textContent()).toMatch(/online/);
    expect(body).toContain('SN-<i>2</i>');
    expect(await page.locator('i').count()).toBe(0);
    expect(body).toMatch(/waiting to be sent\s*0/);
    await waitFor(() => delivered === '10', 10_000, 'the page shows 10 delivered');
    expect(body).toMatch(
      /Box time \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+00:00 \(UTC\+00:00\): every time on this page is box time/,
    );
    expect(body).toMatch(/punchgate \d+\.\d+\.\d+\S* · up \d+/);
    expect(problems).toEqual([]);
    // Usable on a phone: nothing wider than the screen.
    // The page reloads itself (meta refresh): on a loaded box a reload can begin during the
    // evaluation, which then has no page to answer; measured again on the page loaded next.
    const measure = async (): Promise<[number, number]> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return (await page.evaluate(
            '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
          )) as [number, number];
        } catch (e) {
          if (attempt >= 5 || !/context was destroyed|navigat/i.test(String(e))) throw e;
          await page.waitForLoadState('load');
        }
      }
    };
    const widths = await measure();
    expect(widths[0]).toBeLessThanOrEqual(widths[1]);

    // New punches: the page, reloading itself, shows them delivered.
    const loadsBefore = loads;
    for (let i = 0; i < 5; i++) a.addPunch({ userId: String(2000 + i), logTime: nextTime() });
    await waitFor(() => stack.hrms.attendance().length === 15, 15_000, 'new punches delivered');
    await waitFor(() => delivered === '15', 15_000, 'the page shows the new punches');
    expect(loads).toBeGreaterThan(loadsBefore);

    // A terminal going away shows as OFFLINE.
    await stack.terminals[1]!.stop();
    let gate2 = '';
    page.on('load', () => {
      void page
        .locator('#terminals tbody tr', { hasText: 'gate-2' })
        .textContent()
        .then((t) => (gate2 = t ?? ''))
        .catch(() => undefined);
    });
    await waitFor(() => /OFFLINE/.test(gate2), 15_000, 'gate-2 shown OFFLINE');
    expect(problems).toEqual([]);
  }, 90_000);
});

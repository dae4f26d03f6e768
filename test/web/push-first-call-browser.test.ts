import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/index.js';
import { renderPage } from '../../src/web/page.js';
import { launchChromium } from '../helpers/browser.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A push terminal waiting for its first call after punchgate run started is no fault (status
 * says "nothing to do yet"), but the page showed it as one: the cause in the error's bold, under
 * a "Fix:". Chromium computes the style of the real page built from a real journal's status: the
 * waiting words are in the muted colour of a state, at normal weight, without "Fix:"; once its
 * interval has passed, the same terminal is shown as an error again.
 */
describe('a push terminal waiting for its first call, on the status page', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  const start = Date.UTC(2026, 11, 1, 8, 0, 0);
  beforeAll(async () => {
    browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(() => {
    tmp = tempDir();
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-s', clock: fakeClock(start), mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  /** The browser's getComputedStyle (the tests' types have no DOM library). */
  type Computed = { getComputedStyle(e: unknown): { color: string; fontWeight: string } };

  /** The "last result" cell's text and its computed style, and a muted text's colour for comparison. */
  const resultCellAt = async (now: number) => {
    const config = parseConfig(
      {
        site: 'plant-s',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        adms: { listen: '127.0.0.1:0', delay: 10 },
        terminals: [{ name: 'lobby', kind: 'adms', serial: 'CQZ7231' }],
      },
      tmp.dir,
    );
    const report = buildStatus(journal, config, now, {
      live: { journalBusySince: null, heldPunches: 0, startedAt: start },
    });
    const page = await browser.context.newPage();
    await page.setContent(renderPage(report, { version: 't', uptimeSeconds: 5, zone: 'UTC', refreshSeconds: 10 }));
    const cell = page.locator('td[data-label="last result"]').first();
    const text = (await cell.innerText()).replace(/\s+/g, ' ').trim();
    const style = await cell.evaluate((td) => {
      const first = td.firstElementChild!;
      const s = (globalThis as unknown as Computed).getComputedStyle(first);
      return { color: s.color, weight: Number(s.fontWeight), className: first.className };
    });
    const muted = await page
      .locator('span.muted')
      .first()
      .evaluate((e) => (globalThis as unknown as Computed).getComputedStyle(e).color);
    await page.close();
    return { text, style, muted };
  };

  it('is said plainly in the muted colour, not as an error with a fix', async () => {
    const waiting = await resultCellAt(start + 5_000);
    expect(waiting.text).toMatch(
      /^waiting for its first call \(punchgate run started at .*\): nothing to do yet: it should call by /,
    );
    expect(waiting.text).not.toContain('Fix:');
    expect(waiting.style.className).not.toMatch(/\berr\b|\bcause\b/);
    expect(waiting.style.weight).toBeLessThanOrEqual(400);
    expect(waiting.style.color).toBe(waiting.muted);
  });

  it('once its first interval has passed, it is an error with its fix again', async () => {
    const overdue = await resultCellAt(start + 31_000);
    expect(overdue.text).toMatch(/^it has not called this box yet ?Fix: check its power and network/);
    expect(overdue.style.weight).toBeGreaterThan(400);
  });
});

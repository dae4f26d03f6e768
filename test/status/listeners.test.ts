import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { ALERT } from '../../src/status/alert-words.js';
import { listenerFacts } from '../../src/status/listeners.js';
import type { ListenerFact } from '../../src/util/listener-fact.js';
import { ListenerTrouble } from '../../src/util/listener-fact.js';
import { listenerNotReady } from '../../src/web/readiness.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const down = (over: Partial<ListenerFact>): ListenerFact => ({
  listener: 'push',
  listen: '0.0.0.0:8081',
  up: false,
  downSince: Date.UTC(2026, 10, 22, 8, 58, 0),
  code: 'EADDRINUSE',
  nextTryAt: Date.UTC(2026, 10, 22, 9, 0, 30),
  ...over,
});

describe('a port the daemon cannot take, in the status', () => {
  function setup() {
    const tmp = tempDir();
    const clock = fakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', mode: 'owner', clock });
    const config = parseConfig(
      {
        site: 'p',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com' },
        adms: { listen: '0.0.0.0:8081', delay: 10 },
        terminals: [
          { name: 'lobby', kind: 'adms', serial: 'LOBBY1' },
          { name: 'door', kind: 'adms', serial: 'DOOR1' },
          { name: 'reception', kind: 'hikvision', url: 'http://10.0.0.9', listen: true, allowFrom: ['10.0.0.9'] },
          { name: 'gate', kind: 'zk', host: '10.0.0.1' },
        ],
      },
      tmp.dir,
    );
    // lobby called a moment ago: online by the journal, but it cannot reach a receiver that does not listen.
    new PushStore(journal.db, journal, clock).recordContacts([
      {
        terminal: 'lobby',
        serial: 'LOBBY1',
        lastContactAt: clock.now() - 1000,
        address: '10.0.0.5',
        online: true,
        offlineSince: null,
      },
    ]);
    return { tmp, clock, journal, config };
  }

  it('push receiver down: one alert with cause and fix, its push terminals offline with that cause, others untouched', () => {
    const { tmp, clock, journal, config } = setup();
    try {
      const live = { journalBusySince: null, heldPunches: 0 };
      const fine = buildStatus(journal, config, clock.now(), { live: { ...live, listeners: [down({ up: true })] } });
      expect(fine.terminals.find((t) => t.name === 'lobby')?.online).toBe(true);
      expect(fine.alertItems.map((a) => a.kind)).not.toContain('push-not-listening');

      const r = buildStatus(journal, config, clock.now(), { live: { ...live, listeners: [down({})] } });
      const alerts = r.alertItems.filter((a) => a.kind === 'push-not-listening');
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.cause).toMatch(
        /^the push terminal receiver cannot listen on 0\.0\.0\.0:8081 since .+: another program holds that port; push terminals lobby, door cannot send their punches \(they wait on the terminals\); Hikvision terminal reception is only polled meanwhile$/,
      );
      expect(alerts[0]!.fix).toMatch(
        /^find it with ss -ltnp 'sport = :8081' and stop it, or set adms\.listen to a free port \(and the terminals' server port to match\) and sudo systemctl restart punchgate; punchgate keeps trying \(next try .+\)$/,
      );
      for (const name of ['lobby', 'door']) {
        const t = r.terminals.find((x) => x.name === name)!;
        expect(t.online, name).toBe(false);
        expect(t.problem, name).toEqual({
          cause: 'it cannot send: the push terminal receiver cannot listen on 0.0.0.0:8081',
          fix: 'free port 8081 or change adms.listen (the alert above says how)',
        });
      }
      expect(r.terminals.find((t) => t.name === 'gate')?.listenerDown).toBeUndefined();
      expect(r.listeners).toEqual([
        {
          listener: 'push',
          listen: '0.0.0.0:8081',
          up: false,
          downSince: '2026-11-22T08:58:00.000Z',
          code: 'EADDRINUSE',
          nextTryAt: '2026-11-22T09:00:30.000Z',
        },
      ]);
      // The status log and `punchgate status` print it.
      expect(formatStatus(r)).toContain('the push terminal receiver cannot listen on 0.0.0.0:8081');
      // Long after, no second "has not pushed" alert with the wrong fix (power, network).
      const later = buildStatus(journal, config, clock.now() + 3_600_000, { live: { ...live, listeners: [down({})] } });
      expect(later.alertItems.map((a) => a.kind).filter((k) => k === 'push-silent')).toEqual([]);
      // `punchgate status` reads the facts back from status.json as the daemon wrote them.
      expect(listenerFacts(JSON.parse(JSON.stringify(r.listeners)) as typeof r.listeners)).toEqual([down({})]);
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });

  it('each cause has its own fix: permission, no such address, the status page', () => {
    const { tmp, clock, journal, config } = setup();
    try {
      const alert = (f: ListenerFact) =>
        buildStatus(journal, config, clock.now(), {
          live: { journalBusySince: null, heldPunches: 0, listeners: [f] },
        }).alertItems.find((a) => a.kind.endsWith('-not-listening'))!;
      const low = alert(down({ listen: '0.0.0.0:81', code: 'EACCES' }));
      expect(low.cause).toContain('cannot listen on 0.0.0.0:81 since');
      expect(low.cause).toContain('a port below 1024 needs permission');
      expect(low.fix).toMatch(/^set adms\.listen to a port above 1024 .*and sudo systemctl restart punchgate/);
      const nowhere = alert(down({ listen: '10.9.9.9:8081', code: 'EADDRNOTAVAIL' }));
      expect(nowhere.cause).toContain('this box has no such address');
      expect(nowhere.fix).toContain('ip -br addr');
      const page = alert(down({ listener: 'status', listen: '127.0.0.1:9330' }));
      expect(page.kind).toBe('status-not-listening');
      expect(page.cause).toMatch(
        /^the status page cannot listen on 127\.0\.0\.1:9330 since .+: another program holds that port; the page, \/status\.json, \/metrics and \/readyz are not served \(punches are collected and delivered as usual\)$/,
      );
      expect(page.fix).toMatch(
        /^find it with ss -ltnp 'sport = :9330' and stop it, or set status\.listen to a free port and sudo systemctl reload punchgate; punchgate keeps trying/,
      );
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });

  it('/readyz: not ready while the push receiver cannot listen; a listener remembers its first failure until it listens', () => {
    expect(listenerNotReady(undefined)).toEqual([]);
    expect(listenerNotReady(down({ up: true, downSince: null, code: null, nextTryAt: null }))).toEqual([]);
    expect(listenerNotReady(down({}))[0]).toMatch(
      /^the push terminal receiver cannot listen on 0\.0\.0\.0:8081 \(EADDRINUSE\) since .+: push terminals cannot send their punches; punchgate keeps trying$/,
    );
    const t = new ListenerTrouble();
    t.failed(1000, 'EADDRINUSE', 1000);
    t.failed(2000, 'EACCES', 2000);
    expect(t.fact('push', 'x:1', false)).toMatchObject({ downSince: 1000, code: 'EACCES', nextTryAt: 4000 });
    expect(t.listening()).toBe(true);
    expect(t.listening()).toBe(false);
    expect(t.fact('push', 'x:1', true)).toMatchObject({ up: true, downSince: null, code: null });
  });
});

describe('the push receiver alert, one terminal', () => {
  it('says "push terminal lobby cannot send its punches ... the terminal" for one, not the plural (found by new-user trials)', () => {
    const a = ALERT.listenerDown(
      { listener: 'push', listen: '0.0.0.0:8081', up: false, downSince: null, code: 'EADDRINUSE', nextTryAt: null },
      { push: ['lobby'], posting: [] },
    );
    expect(a.cause).toContain('push terminal lobby cannot send its punches (they wait on the terminal)');
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import {
  DEFAULT_DIRECTION_RULE,
  directionResolver,
  directionRuleOf,
  directionShower,
  directionWord,
  resolveDirection,
} from '../../src/punch/direction.js';
import { attendanceStatusState, inoutStatusState, stateLabel } from '../../src/punch/states.js';

/** The terminals of a config as the loader reads it from YAML (keys of `directionStates` as written). */
function terminalsOf(yaml: string) {
  const text = `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
adms:
  listen: 127.0.0.1:0
terminals:
${yaml}`;
  return parseConfigText(text, 'punchgate.yaml', '/tmp').terminals;
}

/** Every state a terminal may record, and one without a name, and none. */
const STATES = [0, 1, 2, 3, 4, 5, 255, 9, null] as const;

describe('a punch direction from its terminal setting and its recorded state', () => {
  it('ZK pull, default (device): check-in and break-in, overtime-in are in; check-out, break-out, overtime-out out; 255, unknown and none: none', () => {
    const of = directionResolver(terminalsOf('  - { name: gate, kind: zk, host: 10.0.0.1 }\n'));
    expect(STATES.map((s) => of({ terminal: 'gate', punchState: s }))).toEqual([
      'in',
      'out',
      'out',
      'in',
      'in',
      'out',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('directionStates changes only the states it names (YAML number keys), the rest keep their meaning', () => {
    const of = directionResolver(
      terminalsOf(`  - name: gate
    kind: zk
    host: 10.0.0.1
    directionStates:
      2: none
      3: none
      255: in
      9: out
`),
    );
    expect(STATES.map((s) => of({ terminal: 'gate', punchState: s }))).toEqual([
      'in',
      'out',
      undefined,
      undefined,
      'in',
      'out',
      'in',
      'out',
      undefined,
    ]);
  });

  it('in and out name every punch of the terminal whatever its state; alternate and none send none', () => {
    const ts = terminalsOf(`  - { name: entrance, kind: zk, host: 10.0.0.1, direction: in }
  - { name: exit, kind: serial, path: /dev/ttyUSB0, format: card, direction: out }
  - { name: turnstile, kind: zk, host: 10.0.0.2, direction: alternate }
  - { name: office, kind: zk, host: 10.0.0.3, direction: none }
`);
    const of = directionResolver(ts);
    const all = (terminal: string) => STATES.map((s) => of({ terminal, punchState: s }));
    expect(all('entrance')).toEqual(STATES.map(() => 'in'));
    expect(all('exit')).toEqual(STATES.map(() => 'out'));
    expect(all('turnstile')).toEqual(STATES.map(() => undefined));
    expect(all('office')).toEqual(STATES.map(() => undefined));
    // What `punches` shows for them: alternate says the sink pairs them.
    const show = directionShower(ts);
    expect(directionWord(show({ terminal: 'turnstile', punchState: 1 }))).toBe('alternate');
    expect(directionWord(show({ terminal: 'office', punchState: 1 }))).toBe('-');
    expect(show({ terminal: 'entrance', punchState: 1 })).toEqual({
      stateName: 'check-out',
      direction: 'in',
      directionSetting: 'in',
    });
  });

  it('a serial reader records no state: device gives none, in/out give theirs', () => {
    const of = directionResolver(terminalsOf('  - { name: reader, kind: serial, path: /dev/ttyUSB0, format: card }\n'));
    expect(of({ terminal: 'reader', punchState: null })).toBeUndefined();
  });

  it('Hikvision: directionStates names attendanceStatus values (any letter case), kept as their states', () => {
    const ts = terminalsOf(`  - name: lobby
    kind: hikvision
    url: https://192.0.2.10
    directionStates:
      breakOut: none
      OVERTIMEIN: out
`);
    const of = directionResolver(ts);
    const statuses = [
      'checkIn',
      'checkOut',
      'breakOut',
      'breakIn',
      'overtimeIn',
      'overtimeOut',
      'undefined',
      undefined,
    ];
    expect(statuses.map((s) => of({ terminal: 'lobby', punchState: attendanceStatusState(s) }))).toEqual([
      'in',
      'out',
      undefined,
      'in',
      'out',
      'out',
      undefined,
      undefined,
    ]);
  });

  it('push terminals: ATTLOG status as ZK states; Security PUSH inoutstatus 0 entry in, 1 exit out, 2 (none) none', () => {
    const of = directionResolver(terminalsOf('  - { name: door, kind: adms, serial: CQZ7233461467 }\n'));
    const dir = (s: number | null) => of({ terminal: 'door', punchState: s });
    // ATTLOG lines of the captured eSSL F22 upload (adms-push.md B.3): status 0 and 1; 8-field firmware: 255.
    expect([0, 1, 255].map(dir)).toEqual(['in', 'out', undefined]);
    expect([0, 1, 2, null].map((s) => dir(inoutStatusState(s)))).toEqual(['in', 'out', undefined, undefined]);
    expect(inoutStatusState(2)).toBe(255);
    expect(inoutStatusState(7)).toBe(7);
  });

  it('a terminal not in the config (an import under its own name, one since removed): the default rule', () => {
    const of = directionResolver([]);
    expect(of({ terminal: 'import', punchState: 1 })).toBe('out');
    expect(directionRuleOf(undefined)).toBe(DEFAULT_DIRECTION_RULE);
    expect(resolveDirection(DEFAULT_DIRECTION_RULE, undefined)).toBeUndefined();
  });

  it('names the states for people', () => {
    expect([0, 1, 2, 3, 4, 5, 255, 17, null].map(stateLabel)).toEqual([
      'check-in',
      'check-out',
      'break-out',
      'break-in',
      'overtime-in',
      'overtime-out',
      'undefined',
      'state 17',
      '',
    ]);
  });
});

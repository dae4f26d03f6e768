import { describe, expect, it } from 'vitest';
import { containerInDefaultUtc, containerZoneWarning, type ZoneFacts } from '../../src/util/container-zone.js';

const docker = (over: Partial<ZoneFacts> = {}): ZoneFacts => ({
  env: {},
  exists: (p) => p === '/.dockerenv',
  offsetMinutes: 0,
  localtime: 'Etc/UTC',
  ...over,
});

describe('the container time-zone warning', () => {
  it('is given for enabled terminals without timezone in a container left in UTC', () => {
    const facts = docker();
    expect(containerInDefaultUtc(facts)).toBe(true);
    expect(containerInDefaultUtc(docker({ localtime: undefined }))).toBe(true);
    const w = containerZoneWarning(
      [{ name: 'gate-1' }, { name: 'gate-2', timezone: 'Europe/Berlin' }, { name: 'old', enabled: false }],
      facts,
    );
    expect(w).toEqual({
      detail: 'terminal gate-1 has no timezone and this container runs in UTC, so its clock is read as UTC',
      fix: 'start the container with -e TZ=<the site zone, e.g. Europe/Berlin>, or set timezone: on each terminal',
    });
  });

  it('names several terminals, at most three by name', () => {
    const facts = docker({ env: { container: 'podman' }, exists: () => false });
    const w = containerZoneWarning(
      ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name })),
      facts,
    );
    expect(w?.detail).toBe(
      'terminals a, b, c and 2 more have no timezone and this container runs in UTC, so their clocks are read as UTC',
    );
  });

  it('is not given outside a container, with TZ set, off UTC, or when every terminal has a zone', () => {
    const t = [{ name: 'gate-1' }];
    expect(containerZoneWarning(t, docker({ exists: () => false }))).toBeUndefined();
    expect(containerZoneWarning(t, docker({ env: { TZ: 'UTC' } }))).toBeUndefined();
    expect(containerZoneWarning(t, docker({ env: { TZ: 'Europe/Berlin' }, offsetMinutes: 60 }))).toBeUndefined();
    expect(containerZoneWarning(t, docker({ offsetMinutes: 60 }))).toBeUndefined();
    expect(containerZoneWarning(t, docker({ localtime: 'Europe/London' }))).toBeUndefined();
    expect(containerZoneWarning([{ name: 'g', timezone: 'Asia/Kolkata' }], docker())).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { refusalAlerts } from '../../src/status/push.js';

/**
 * A push terminal configured with its serial mistyped (CQZ7232160001 for CQZ7232160002): a
 * new-user trial saw the terminal "not called yet" and, beside it, "SN=CQZ7232160002 is pushing but
 * is not configured: add it to terminals", which sent them to add a second terminal. The alert now
 * names the configured terminal whose serial is nearly the same, and the serial to correct.
 */
describe('an unknown push serial nearly a configured one', () => {
  const row = (serial: string) => ({
    serial,
    address: '192.168.1.50',
    reason: 'unknown' as const,
    terminal: null,
    firstSeenAt: '2026-12-01T08:00:00.000Z',
    lastSeenAt: '2026-12-01T08:05:00.000Z',
    count: 12,
  });
  const configured = [
    { name: 'lobby', serial: 'CQZ7232160001' },
    { name: 'canteen', serial: 'BJ2C201460456' },
  ];

  it('names that terminal and the serial to correct, or still to add the device', () => {
    const [typo] = refusalAlerts([row('CQZ7232160002')], false, configured);
    expect(typo!.alert.fix).toBe(
      'if it is terminal lobby, configured with the serial CQZ7232160001 (nearly the same: a typo?), correct that serial to CQZ7232160002 (System Info on the terminal shows it), then reload; otherwise add it to terminals with kind: adms and serial: CQZ7232160002, then reload',
    );
    // Another device altogether: only the addition.
    const [other] = refusalAlerts([row('AEWD193760015')], false, configured);
    expect(other!.alert.fix).toBe('add it to terminals with kind: adms and serial: AEWD193760015, then reload');
  });
});

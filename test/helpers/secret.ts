import { expect } from 'vitest';

/**
 * Asserts that a secret is not in a text (a log, a dump, an error). A secret of digits only
 * (a comm key, a terminal password) counts only where it stands alone: "4321" inside the
 * millisecond timestamp 1795908684321 is a time, not a leak, and a plain substring check
 * made such tests fail by chance (CI, 2026-11-28).
 */
export function expectNoSecret(text: string, secret: string): void {
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = /^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${escaped}(?!\\d)`) : new RegExp(escaped);
  const found = pattern.exec(text);
  const around = found ? text.slice(Math.max(0, found.index - 60), found.index + secret.length + 60) : '';
  expect(found === null, `secret "${secret}" found in: …${around}…`).toBe(true);
}

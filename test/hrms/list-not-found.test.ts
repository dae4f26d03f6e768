import { describe, expect, it } from 'vitest';
import { listNotFound } from '../../src/hrms/fetch-list.js';

/**
 * What an employee fetch answer without its list holds, in plain words: it named the first lists
 * and keys it found and left the others out without a word, so an answer of many keys read as
 * one of those few (firstFew says how many more).
 */
describe('listNotFound', () => {
  it('names the first few lists and keys, and how many more there are', () => {
    const envelope = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
    expect(listNotFound(undefined, envelope).found).toBe(
      'no data and no list (top-level keys: k0, k1, k2, k3, k4, k5, k6, k7 and 2 more)',
    );
    const lists = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`l${i}`, [i]]));
    expect(listNotFound(undefined, lists).found).toBe(
      'a list of 1 under the top-level key "l0", a list of 1 under the top-level key "l1", a list of 1 under the top-level key "l2" and 2 more',
    );
    expect(listNotFound(undefined, { status: true, message: 'ok' }).found).toBe(
      'no data and no list (top-level keys: status, message)',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { expectNoSecret } from '../helpers/secret.js';

describe('expectNoSecret (the test helper for leaked secrets)', () => {
  it('fails on a secret that stands alone and passes on digits inside a longer number', () => {
    expect(() => expectNoSecret('"password":"4321"', '4321')).toThrow(/secret "4321" found/);
    expect(() => expectNoSecret('pin=1 password=4321\tgroup=1', '4321')).toThrow();
    expectNoSecret('"received_at":1795908684321', '4321');
    expect(() => expectNoSecret('Authorization: token a.b+c', 'a.b+c')).toThrow();
    expectNoSecret('token abXbYc', 'a.b+c');
  });
});

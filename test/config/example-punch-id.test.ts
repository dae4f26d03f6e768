import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hashedPunchId } from '../../src/journal/punch-id.js';

/** What the example config and docs/configure.md say of the devicelogId is the form the daemon sends. */
describe('the devicelogId form the example config and docs state', () => {
  const sent = hashedPunchId({ site: 'plant-a', terminal: 'gate-1', device: '', biometricCode: '7', logTime: 'x' });
  const form = (text: string) => /devicelogId[^\n"]*"([^"]+)"/.exec(text)?.[1];

  it('is <site>-<20 hex digits>, as a punch id is made', () => {
    expect(sent).toMatch(/^plant-a-[0-9a-f]{20}$/);
    for (const file of ['config/punchgate.example.yaml', 'docs/configure.md']) {
      expect(`${file}: ${form(readFileSync(file, 'utf8'))}`).toBe(`${file}: <site>-<20 hex digits>`);
    }
  });

  it("the example's sample id has the form a real one has", () => {
    const example = readFileSync('config/punchgate.example.yaml', 'utf8');
    const sample = /\(e\.g\. (plant-a-\w+)\)/.exec(example)?.[1];
    expect(sample?.length).toBe(sent.length);
    expect(sample).toMatch(/^plant-a-[0-9a-f]{20}$/);
  });
});

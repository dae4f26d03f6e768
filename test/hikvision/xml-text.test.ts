import { describe, expect, it } from 'vitest';
import { xmlField } from '../../src/sources/hikvision/isapi.js';

/** Text of an XML answer or event as the device meant it: its escapes undone once, nothing expanded. */
describe('XML field text', () => {
  const xml = (v: string) =>
    `<EventNotificationAlert><employeeNoString>${v}</employeeNoString></EventNotificationAlert>`;

  it('undoes the predefined entities and character references', () => {
    expect(xmlField(xml('A&amp;B'), 'employeeNoString')).toBe('A&B');
    expect(xmlField(xml('&#49;001'), 'employeeNoString')).toBe('1001');
    expect(xmlField(xml('&#x31;002'), 'employeeNoString')).toBe('1002');
    expect(xmlField(xml('&lt;x&gt; &quot;q&quot; &apos;a&apos;'), 'employeeNoString')).toBe(`<x> "q" 'a'`);
  });

  it('decodes once, and leaves what is no character or no entity as written', () => {
    expect(xmlField(xml('&amp;lt;'), 'employeeNoString')).toBe('&lt;');
    expect(xmlField(xml('&#0;1&#xD800;&#1114112;'), 'employeeNoString')).toBe('&#0;1&#xD800;&#1114112;');
    expect(xmlField(xml('&bomb;&nbsp;'), 'employeeNoString')).toBe('&bomb;&nbsp;');
  });
});

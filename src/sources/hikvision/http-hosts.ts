import { isIP } from 'node:net';
import { escapeXml } from './isapi.js';

/**
 * The device's HTTP Listening settings (`/ISAPI/Event/notification/httpHosts`): where it POSTs
 * its events. Laid out as ISAPI writes them (HttpHostNotificationList of HttpHostNotification:
 * id, url, protocolType, parameterFormatType, addressingFormatType, ipAddress or hostName, portNo,
 * httpAuthenticationMethod), after Hikvision's ISAPI documents and other projects' code
 * (shaykhnazar/hikvision-isapi EventNotificationService); the web UI shows the same under
 * Configuration > Network > Advanced > HTTP Listening (pergolafabio/Hikvision-Addons #177).
 */
export const HTTP_HOSTS_PATH = '/ISAPI/Event/notification/httpHosts';

export interface HttpHostSetting {
  id: string;
  url: string;
  protocolType: string;
  parameterFormatType: string;
  addressingFormatType: string;
  /** The address (or host name, with addressingFormatType hostname). */
  host: string;
  portNo: number;
  httpAuthenticationMethod: string;
}

/** The setting that points the device at the box: plain HTTP, JSON events, no authentication. */
export function boxHttpHost(id: string, address: string, port: number, path: string): HttpHostSetting {
  return {
    id,
    url: path,
    protocolType: 'HTTP',
    parameterFormatType: 'JSON',
    addressingFormatType: isIP(address) ? 'ipaddress' : 'hostname',
    host: address,
    portNo: port,
    httpAuthenticationMethod: 'none',
  };
}

function hostXml(h: HttpHostSetting): string {
  const addr =
    h.addressingFormatType === 'hostname'
      ? `<hostName>${escapeXml(h.host)}</hostName>`
      : `<ipAddress>${escapeXml(h.host)}</ipAddress>`;
  return [
    '<HttpHostNotification>',
    `<id>${escapeXml(h.id)}</id>`,
    `<url>${escapeXml(h.url)}</url>`,
    `<protocolType>${escapeXml(h.protocolType)}</protocolType>`,
    `<parameterFormatType>${escapeXml(h.parameterFormatType)}</parameterFormatType>`,
    `<addressingFormatType>${escapeXml(h.addressingFormatType)}</addressingFormatType>`,
    addr,
    `<portNo>${h.portNo}</portNo>`,
    `<httpAuthenticationMethod>${escapeXml(h.httpAuthenticationMethod)}</httpAuthenticationMethod>`,
    '</HttpHostNotification>',
  ].join('\n');
}

/** The body of `PUT /ISAPI/Event/notification/httpHosts`. */
export function httpHostsXml(hosts: readonly HttpHostSetting[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<HttpHostNotificationList version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">',
    ...hosts.map(hostXml),
    '</HttpHostNotificationList>',
    '',
  ].join('\n');
}

const decode = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) =>
    e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'amp' ? '&' : e === 'quot' ? '"' : "'",
  );

/** The hosts of a device's answer to `GET .../httpHosts` (XML); none when it holds none. */
export function parseHttpHostsXml(text: string): HttpHostSetting[] {
  const out: HttpHostSetting[] = [];
  for (const m of text.matchAll(/<HttpHostNotification\b[^>]*>([\s\S]*?)<\/HttpHostNotification>/g)) {
    const f: Record<string, string> = {};
    for (const x of m[1]!.matchAll(/<(\w+)\b[^>]*>([^<]*)<\/\1>/g)) f[x[1]!] = decode(x[2]!.trim());
    out.push({
      id: f.id ?? String(out.length + 1),
      url: f.url ?? '',
      protocolType: f.protocolType ?? 'HTTP',
      parameterFormatType: f.parameterFormatType ?? 'XML',
      addressingFormatType: f.addressingFormatType ?? 'ipaddress',
      host: f.ipAddress || f.hostName || '',
      portNo: Number(f.portNo ?? 0) || 0,
      httpAuthenticationMethod: f.httpAuthenticationMethod ?? 'none',
    });
  }
  return out;
}

/**
 * The device's hosts with the box's in place: in the slot that already points at the box's path,
 * else in the first empty slot, else in slot 1 (then `replaced` is the host that was there).
 */
export function withBoxHost(
  current: readonly HttpHostSetting[],
  address: string,
  port: number,
  path: string,
): { hosts: HttpHostSetting[]; replaced?: HttpHostSetting } {
  const slot =
    current.find((h) => h.url.toLowerCase() === path.toLowerCase()) ??
    current.find((h) => h.host === '' || h.host === '0.0.0.0') ??
    current[0];
  const id = slot?.id ?? '1';
  const mine = boxHttpHost(id, address, port, path);
  const replaced = slot && slot.host !== '' && slot.host !== '0.0.0.0' && slot.url.toLowerCase() !== path.toLowerCase();
  const hosts = current.length === 0 ? [mine] : current.map((h) => (h.id === id ? mine : h));
  return replaced ? { hosts, replaced: slot } : { hosts };
}

/**
 * HTTP Listening of the simulated terminal: with a host set in `httpHosts` (by punchgate's
 * `terminals listen`, by the admin API or an option), every new event is POSTed to it, one at a
 * time and in order, until the host answers 200; anything else (an error status, no answer, a
 * connection refused) is tried again after `retryMs`, as real devices do.
 *
 * What real firmware sends, from public captures: a JSON body (`application/json`) with
 * `eventType: AccessControllerEvent` (pergolafabio/Hikvision-Addons #177, a DS-K1T502DBFWX-C
 * posting to Configuration > Network > HTTP Listening), or multipart/form-data with the event as
 * one part and a JPEG picture as another (face terminals); some firmware writes the event as an
 * XML EventNotificationAlert. The httpHosts settings as ISAPI writes them (HttpHostNotification:
 * id, url, protocolType, parameterFormatType, addressingFormatType, ipAddress, portNo,
 * httpAuthenticationMethod) follow Hikvision's ISAPI documents and shaykhnazar/hikvision-isapi.
 */
import { request } from 'node:http';
import type { HttpHost, ListenFormat, PosterStats, SimEvent } from './types.js';

export interface PosterOptions {
  format: ListenFormat;
  /** Size of the picture part of a multipart post. */
  pictureBytes: number;
  retryMs: number;
  /** The address posts are sent from (a stranger test sends from another loopback address). */
  localAddress?: string;
  device: { macAddress: string; ipAddress: string };
}

const BOUNDARY = 'MIME_boundary';
const POST_TIMEOUT_MS = 10_000;

const xmlEscape = (s: string) => s.replace(/[<>&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&amp;'));

/** httpHosts from a PUT body: XML (HttpHostNotificationList or one HttpHostNotification) or JSON. */
export function parseHttpHosts(body: string): HttpHost[] | undefined {
  const text = body.trim();
  const blocks: Record<string, string>[] = [];
  if (text.startsWith('<')) {
    if (!/<HttpHostNotification(List)?\b[^>]*>/.test(text)) return undefined;
    for (const m of text.matchAll(/<HttpHostNotification\b[^>]*>([\s\S]*?)<\/HttpHostNotification>/g)) {
      const fields: Record<string, string> = {};
      for (const f of m[1]!.matchAll(/<(\w+)>([^<]*)<\/\1>/g)) fields[f[1]!] = f[2]!.trim();
      blocks.push(fields);
    }
  } else {
    try {
      const o = JSON.parse(text) as Record<string, unknown>;
      const list = (o.HttpHostNotificationList ?? o.HttpHostNotification ?? o) as unknown;
      for (const h of Array.isArray(list) ? list : [list])
        if (h && typeof h === 'object') {
          const inner = (h as Record<string, unknown>).HttpHostNotification ?? h;
          blocks.push(Object.fromEntries(Object.entries(inner as object).map(([k, v]) => [k, String(v)])));
        }
    } catch {
      return undefined;
    }
  }
  const hosts = blocks.map((b) => ({
    id: b.id ?? '1',
    url: b.url ?? '/',
    protocolType: b.protocolType ?? 'HTTP',
    parameterFormatType: b.parameterFormatType ?? 'XML',
    addressingFormatType: b.addressingFormatType ?? 'ipaddress',
    ipAddress: b.ipAddress ?? '',
    portNo: Number(b.portNo ?? 80),
    httpAuthenticationMethod: b.httpAuthenticationMethod ?? 'none',
  }));
  return hosts.every((h) => h.url.startsWith('/') && Number.isInteger(h.portNo) && h.portNo > 0 && h.portNo < 65536)
    ? hosts
    : undefined;
}

/** httpHosts as the device answers a GET (XML, as ISAPI does). */
export function httpHostsXml(hosts: readonly HttpHost[]): string {
  const one = (h: HttpHost) =>
    [
      '<HttpHostNotification>',
      `<id>${xmlEscape(h.id)}</id>`,
      `<url>${xmlEscape(h.url)}</url>`,
      `<protocolType>${xmlEscape(h.protocolType)}</protocolType>`,
      `<parameterFormatType>${xmlEscape(h.parameterFormatType)}</parameterFormatType>`,
      `<addressingFormatType>${xmlEscape(h.addressingFormatType)}</addressingFormatType>`,
      `<ipAddress>${xmlEscape(h.ipAddress)}</ipAddress>`,
      `<portNo>${h.portNo}</portNo>`,
      `<httpAuthenticationMethod>${xmlEscape(h.httpAuthenticationMethod)}</httpAuthenticationMethod>`,
      '</HttpHostNotification>',
    ].join('\r\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<HttpHostNotificationList version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">',
    ...hosts.map(one),
    '</HttpHostNotificationList>',
    '',
  ].join('\r\n');
}

/** The notification of one event, as the device posts it (JSON). */
export function eventNotification(e: SimEvent, device: PosterOptions['device']): Record<string, unknown> {
  return {
    ipAddress: device.ipAddress,
    portNo: 80,
    protocol: 'HTTP',
    macAddress: device.macAddress,
    channelID: 1,
    dateTime: e.time,
    activePostCount: 1,
    eventType: 'AccessControllerEvent',
    eventState: 'active',
    eventDescription: 'Access Controller Event',
    AccessControllerEvent: {
      deviceName: 'Access Controller',
      majorEventType: e.major,
      subEventType: e.minor,
      ...(e.employeeNoString ? { employeeNoString: e.employeeNoString, name: e.name } : {}),
      ...(e.cardNo ? { cardNo: e.cardNo } : {}),
      ...(e.attendanceStatus ? { attendanceStatus: e.attendanceStatus } : {}),
      cardReaderKind: 1,
      doorNo: e.doorNo ?? 1,
      serialNo: e.serialNo,
      currentVerifyMode: e.currentVerifyMode,
      currentEvent: true,
      frontSerialNo: e.serialNo - 1,
      ...(e.employeeNoString ? { picturesNumber: 1 } : {}),
    },
  };
}

/** The same event as an XML EventNotificationAlert (some firmware). */
function eventXml(e: SimEvent, device: PosterOptions['device']): string {
  const f = (name: string, v: unknown) => (v === undefined ? '' : `<${name}>${xmlEscape(String(v))}</${name}>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<EventNotificationAlert version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">',
    f('ipAddress', device.ipAddress),
    f('macAddress', device.macAddress),
    f('dateTime', e.time),
    f('eventType', 'AccessControllerEvent'),
    f('eventState', 'active'),
    '<AccessControllerEvent>',
    f('majorEventType', e.major),
    f('subEventType', e.minor),
    f('employeeNoString', e.employeeNoString),
    f('cardNo', e.cardNo),
    f('attendanceStatus', e.attendanceStatus),
    f('serialNo', e.serialNo),
    f('currentEvent', 'true'),
    '</AccessControllerEvent>',
    '</EventNotificationAlert>',
    '',
  ].join('\r\n');
}

/** A JPEG-looking picture of `n` bytes (SOI, filler, EOI). */
function picture(n: number): Buffer {
  const b = Buffer.alloc(Math.max(4, n), 0x5a);
  b[0] = 0xff;
  b[1] = 0xd8;
  b[b.length - 2] = 0xff;
  b[b.length - 1] = 0xd9;
  return b;
}

/** The body and content type of one post. */
export function postBody(
  e: SimEvent,
  o: Pick<PosterOptions, 'format' | 'pictureBytes' | 'device'>,
): { type: string; body: Buffer } {
  if (o.format === 'xml') return { type: 'application/xml; charset="UTF-8"', body: Buffer.from(eventXml(e, o.device)) };
  const json = JSON.stringify(eventNotification(e, o.device));
  if (o.format === 'json') return { type: 'application/json; charset="UTF-8"', body: Buffer.from(json) };
  const head = (disposition: string, type: string, length: number) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
  const pic = picture(o.pictureBytes);
  return {
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    body: Buffer.concat([
      Buffer.from(head('name="AccessControllerEvent"', 'application/json', Buffer.byteLength(json))),
      Buffer.from(json),
      Buffer.from('\r\n'),
      Buffer.from(head('name="Picture"; filename="Picture.jpg"', 'image/jpeg', pic.length)),
      pic,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]),
  };
}

/** Posts events to the first httpHost, in order, each until it is answered 200. */
export class HttpPoster {
  private hosts: HttpHost[] = [];
  private readonly queue: SimEvent[] = [];
  private busy = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly s: PosterStats = { delivered: 0, attempts: 0, queued: 0, lastStatus: 0 };
  private readonly answered: SimEvent[] = [];

  constructor(readonly opts: PosterOptions) {}

  setHosts(hosts: HttpHost[]): void {
    this.hosts = hosts;
    this.kick();
  }

  httpHosts(): HttpHost[] {
    return this.hosts.map((h) => ({ ...h }));
  }

  setFormat(format: ListenFormat): void {
    this.opts.format = format;
  }

  /** The events the host answered 200 (told the device it has them), in order. */
  acked(): SimEvent[] {
    return [...this.answered];
  }

  stats(): PosterStats {
    return { ...this.s, queued: this.queue.length };
  }

  /** New events of the device: posted when a host is set (events before that are not: as a device). */
  add(events: readonly SimEvent[]): void {
    if (this.hosts.length === 0) return;
    this.queue.push(...events);
    this.kick();
  }

  private kick(): void {
    if (this.busy || this.stopped || this.queue.length === 0 || this.hosts.length === 0 || this.timer) return;
    void this.postNext();
  }

  private async postNext(): Promise<void> {
    const host = this.hosts[0]!;
    const e = this.queue[0]!;
    this.busy = true;
    this.s.attempts++;
    const status = await this.post(host, e);
    this.busy = false;
    this.s.lastStatus = status;
    if (this.stopped) return;
    if (status === 200) {
      this.answered.push(this.queue.shift()!);
      this.s.delivered++;
      this.kick();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, this.opts.retryMs);
    this.timer.unref();
  }

  private post(host: HttpHost, e: SimEvent): Promise<number> {
    const { type, body } = postBody(e, this.opts);
    return new Promise((resolve) => {
      const req = request(
        {
          host: host.ipAddress,
          port: host.portNo,
          path: host.url,
          method: 'POST',
          headers: { 'content-type': type, 'content-length': body.length, connection: 'close' },
          ...(this.opts.localAddress ? { localAddress: this.opts.localAddress } : {}),
          timeout: POST_TIMEOUT_MS,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', () => resolve(0));
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
      req.end(body);
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

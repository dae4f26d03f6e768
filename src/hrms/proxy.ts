import { readFileSync } from 'node:fs';
import type { HrmsConfig } from '../config/schema.js';
import { SettingFileError } from './setting-file.js';

/**
 * How the HRMS is reached: directly, or through an HTTP proxy (CONNECT, so the TLS session is
 * still end to end with the HRMS). In order:
 * - `hrms.proxy: false`: directly, whatever the environment says;
 * - `hrms.proxy: URL`: through that proxy;
 * - otherwise the environment, as curl reads it: `https_proxy` / `HTTPS_PROXY` for an https://
 *   HRMS, `http_proxy` / `HTTP_PROXY` for an http:// one (lower case first), `no_proxy` /
 *   `NO_PROXY` to go around it (host names, `.domain` suffixes, `host:port`, `*`).
 * Proxy credentials come from the proxy URL's `user:password@` or from `hrms.proxyCredentialsFile`
 * (one line `user:password`). They are secrets: only `shown` (no credentials) is ever printed.
 */
export interface ProxySettings {
  /** none: no proxy set anywhere; off: `hrms.proxy: false`; config: `hrms.proxy`; env: the variables. */
  mode: 'none' | 'off' | 'config' | 'env';
  /** The proxy URL for undici (config mode), credentials included. */
  uri?: string;
  /** What the environment says, for undici's EnvHttpProxyAgent (env mode). */
  env?: { httpProxy: string; httpsProxy: string; noProxy: string; httpVar: string; httpsVar: string };
  /** `Proxy-Authorization` value built from hrms.proxyCredentialsFile. */
  token?: string;
  /** Secret values to scrub from text: passwords and `user:password` pairs. */
  secrets: string[];
}

export type ProxyConfig = Pick<HrmsConfig, 'proxy' | 'proxyCredentialsFile'>;

/** Reads the proxy settings (and the credentials file, if any). Throws ExitError(78) on an unreadable file. */
export function proxySettings(cfg: ProxyConfig, env: NodeJS.ProcessEnv, baseUrl?: string): ProxySettings {
  const fromFile = cfg.proxyCredentialsFile ? readCredentials(cfg.proxyCredentialsFile) : undefined;
  const secrets: string[] = [];
  if (fromFile) secrets.push(fromFile.pair, fromFile.password);
  const token = fromFile ? `Basic ${Buffer.from(fromFile.pair, 'utf8').toString('base64')}` : undefined;
  const withToken = token ? { token } : {};
  if (cfg.proxy === false) return { mode: 'off', secrets };
  if (typeof cfg.proxy === 'string') {
    secrets.push(...urlSecrets(cfg.proxy));
    return { mode: 'config', uri: cfg.proxy, secrets, ...withToken };
  }
  // The lower-case variable first, as curl reads them.
  const variable = (lower: string, upper: string) =>
    env[lower]?.trim() ? { name: lower, value: env[lower].trim() } : { name: upper, value: env[upper]?.trim() ?? '' };
  const protocol = baseUrl && URL.canParse(baseUrl) ? new URL(baseUrl).protocol : undefined;
  // With a known HRMS URL only the variable of its scheme applies (curl never sends https through http_proxy).
  const http = protocol === 'https:' ? { name: '', value: '' } : variable('http_proxy', 'HTTP_PROXY');
  const https = protocol === 'http:' ? { name: '', value: '' } : variable('https_proxy', 'HTTPS_PROXY');
  const noProxy = variable('no_proxy', 'NO_PROXY').value;
  if (!http.value && !https.value) return { mode: 'none', secrets };
  for (const u of [http.value, https.value]) secrets.push(...urlSecrets(u));
  return {
    mode: 'env',
    env: { httpProxy: http.value, httpsProxy: https.value, noProxy, httpVar: http.name, httpsVar: https.name },
    secrets,
    ...withToken,
  };
}

/** How a request to `url` travels, in words for `check` and the logs (never with credentials). */
export function describeRoute(settings: ProxySettings, url: string): string {
  const target = new URL(url);
  if (settings.mode === 'off') return 'directly (hrms.proxy: false)';
  if (settings.mode === 'config') return `through the proxy ${shownProxy(settings.uri!)} (hrms.proxy)`;
  if (settings.mode === 'none' || !settings.env) return 'directly (no proxy set)';
  const https = target.protocol === 'https:';
  const proxy = https ? settings.env.httpsProxy || settings.env.httpProxy : settings.env.httpProxy;
  if (!proxy) return 'directly (no proxy set)';
  if (bypassed(target, settings.env.noProxy)) return 'directly (the HRMS host is in NO_PROXY)';
  const from = https && settings.env.httpsProxy ? settings.env.httpsVar : settings.env.httpVar;
  return `through the proxy ${shownProxy(proxy)} (${from})`;
}

/** scheme://host:port of a proxy URL: no credentials, no path. */
export function shownProxy(uri: string): string {
  if (!URL.canParse(uri)) return '(a proxy URL that cannot be read)';
  const u = new URL(uri);
  return `${u.protocol}//${u.host}`;
}

/**
 * NO_PROXY as undici's EnvHttpProxyAgent applies it (which does the routing; this only
 * describes it): entries split on commas and spaces, `*` for all, an optional `:port`,
 * a leading `.` or `*.` ignored, the host itself or any subdomain of it.
 */
function bypassed(target: URL, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter(Boolean);
  if (noProxy.trim() === '*') return true;
  const host = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return entries.some((entry) => {
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number(m[2]) !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

function urlSecrets(uri: string): string[] {
  if (!uri || !URL.canParse(uri)) return [];
  const u = new URL(uri);
  if (!u.password) return [];
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  return [password, `${user}:${password}`, `${u.username}:${u.password}`];
}

function readCredentials(file: string): { pair: string; password: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new SettingFileError('proxyCredentialsFile', file, code, `cannot read ${file} (${code})`);
  }
  const pair = text.split(/\r?\n/)[0]!.trim();
  const colon = pair.indexOf(':');
  if (colon <= 0) {
    throw new SettingFileError(
      'proxyCredentialsFile',
      file,
      'FORMAT',
      `${file} must hold one line user:password (the first line has no "user:")`,
    );
  }
  return { pair, password: pair.slice(colon + 1) };
}

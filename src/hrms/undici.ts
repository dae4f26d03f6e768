/**
 * The parts of undici punchgate uses, loaded one by one: the package's index also loads
 * fetch, WebSocket, EventSource, the cache and mock layers, which cost about 9 MB resident
 * (and 3 MB of live heap, which raises every later garbage collection limit) in a daemon
 * that only ever sends one kind of request (BENCHMARKS.md). These are undici's own modules,
 * unchanged; the versions are pinned by package-lock.json, and the tests exercise each one.
 */
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import ClientImpl from 'undici/lib/dispatcher/client.js';
import PoolImpl from 'undici/lib/dispatcher/pool.js';
import buildConnectorImpl from 'undici/lib/core/connect.js';
import EnvHttpProxyAgentImpl from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import ProxyAgentImpl from 'undici/lib/dispatcher/proxy-agent.js';
import api from 'undici/lib/api/index.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import formData from 'undici/lib/web/fetch/formdata.js';
import type * as Undici from 'undici';

// As undici's index does: every dispatcher gets request(), connect() (which ProxyAgent's
// CONNECT tunnel uses) and the rest of the API.
Object.assign(DispatcherImpl.prototype, api);

export type { Dispatcher } from 'undici';
export const Agent: typeof Undici.Agent = AgentImpl;
export const Client: typeof Undici.Client = ClientImpl;
export const Pool: typeof Undici.Pool = PoolImpl;
export const ProxyAgent: typeof Undici.ProxyAgent = ProxyAgentImpl;
export const EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent = EnvHttpProxyAgentImpl;
export const FormData: typeof Undici.FormData = formData.FormData;
export const buildConnector: typeof Undici.buildConnector = buildConnectorImpl;
export type Connector = Undici.buildConnector.connector;
export type ConnectorCallback = Undici.buildConnector.Callback;
export type FormData = Undici.FormData;

/** undici's `dispatcher.request(options)`: one request, the answer's status, headers and body stream. */
export function request(
  dispatcher: Undici.Dispatcher,
  options: Undici.Dispatcher.RequestOptions,
): Promise<Undici.Dispatcher.ResponseData> {
  return dispatcher.request(options);
}

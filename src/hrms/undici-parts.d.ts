// Types of the undici modules loaded one by one in undici.ts (the package types its index only).
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentImpl: typeof Agent;
  export default AgentImpl;
}
declare module 'undici/lib/dispatcher/client.js' {
  import type { Client } from 'undici';
  const ClientImpl: typeof Client;
  export default ClientImpl;
}
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolImpl: typeof Pool;
  export default PoolImpl;
}
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import type { ProxyAgent } from 'undici';
  const ProxyAgentImpl: typeof ProxyAgent;
  export default ProxyAgentImpl;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentImpl: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentImpl;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, (...args: unknown[]) => unknown>;
  export default api;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const DispatcherImpl: { prototype: object };
  export default DispatcherImpl;
}
declare module 'undici/lib/web/fetch/formdata.js' {
  import type { FormData } from 'undici';
  const formData: { FormData: typeof FormData };
  export default formData;
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  const buildConnectorImpl: typeof buildConnector;
  export default buildConnectorImpl;
}

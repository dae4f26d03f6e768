export { ZkClient, type ZkClientOptions, type ZkProgress, type ZkDownloadStats } from './client.js';
export type { ZkTransport, ZkTransportKind, ZkLogger } from './transport.js';
export { openTcpTransport } from './transport-tcp.js';
export { openUdpTransport } from './transport-udp.js';
export { ZkExchange, SerialQueue, type Collector } from './exchange.js';
export { readDataset, type BulkReadRequest, type BulkReadOptions } from './bulk-read.js';
export {
  ZkProtocolError,
  ZkChunkNotWholeError,
  ZkDownloadRefusedError,
  ZkTimeoutError,
  ZkAuthError,
  ZkUnauthorizedError,
  ZkConnectionError,
  type ZkUser,
  type ZkAttendance,
  type ZkFreeSizes,
  type ZkRealtimeAttlog,
  type DecodeDatasetOptions,
} from '../protocol/index.js';
export type { ZkUserTable, ZkTemplateRead } from './user-writes.js';
export type { ZkTemplate, UserTemplatesEntry, UserRecordSize } from '../protocol/index.js';

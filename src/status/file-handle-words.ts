import type { FileHandleShortage } from '../util/file-limit.js';
import type { Alert } from './types.js';

/**
 * The push receiver held below `adms.maxConnections` by the file handle limit: said at start (the
 * log), and by the status, the page and `/status.json` while it lasts. Nothing is lost meanwhile:
 * a terminal that finds no free connection is refused and sends again.
 */
export function fileHandlesShort(s: FileHandleShortage): Alert {
  const want = Math.max(65_536, 2 ** Math.ceil(Math.log2(s.wanted)));
  return {
    kind: 'file-handles-short',
    cause: `punchgate run may hold only ${s.limit} files and connections open at once (its file handle limit, ulimit -n), fewer than its terminals, status page and adms.maxConnections ${s.configured} need (about ${s.wanted}): the push terminal receiver takes at most ${s.maxConnections} connections at once, so that the journal, the status and the polled terminals keep theirs`,
    fix: `raise the limit: sudo systemctl edit punchgate, add the lines [Service] and LimitNOFILE=${want}, then sudo systemctl restart punchgate (in a container: docker run --ulimit nofile=${want})${s.fitsWith !== undefined ? `; or set adms.maxConnections to ${s.fitsWith} or fewer (then sudo systemctl restart punchgate)` : ''}`,
  };
}

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { IngestResult, PunchSink } from '../../journal/types.js';
import { detectFormat, parseAttlog, parseCsv, type BadLine } from './parse.js';

/** Where punches of an import count: a named terminal (so they deduplicate with polling) or "import". */
export interface ImportTarget {
  /** `--terminal NAME`, if given. */
  terminal?: string;
  /** The serial number last seen for a terminal name, so imported punches match polled ones. */
  deviceOf: (terminal: string) => string;
}

export interface FileReport extends IngestResult {
  file: string;
  format: 'attlog' | 'csv';
  bad: BadLine[];
}

export const IMPORT_SOURCE = 'import';

/** Reads one file and journals its good lines in one transaction. */
export function importFile(file: string, sink: PunchSink, target: ImportTarget): FileReport {
  const text = readFileSync(file, 'utf8');
  const format = detectFormat(basename(file), text);
  const resolve = (name: string | undefined) => {
    const terminal = target.terminal ?? name ?? IMPORT_SOURCE;
    return { terminal, device: terminal === IMPORT_SOURCE ? '' : target.deviceOf(terminal) };
  };
  const parsed =
    format === 'csv'
      ? parseCsv(text, resolve)
      : (() => {
          const t = resolve(undefined);
          return parseAttlog(text, t.terminal, t.device);
        })();
  const result = sink.ingest(parsed.punches);
  return { file, format, bad: parsed.bad, ...result };
}

import { describe, expect, it } from 'vitest';
import { describeSerialFault } from '../../src/sources/serial/fault.js';
import { openSerialPort } from '../../src/sources/serial/index.js';
import { serialConfig } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

describe('what the status says of a serial path that cannot be opened', () => {
  it('a folder is not a serial device (not a baud rate or parity problem)', async () => {
    // Found by a trial: path one level short (a folder) showed "check the adapter and
    // terminals[0].path, baudRate, dataBits, parity and stopBits".
    const dir = tempDir();
    try {
      const cfg = serialConfig({ path: dir.path('') });
      const error = await openSerialPort(cfg, { onData: () => undefined, onClose: () => undefined }).then(
        () => 'opened',
        (e: Error) => e.message,
      );
      const fault = describeSerialFault(error, cfg, 'terminals[0]');
      expect(fault.cause).toBe(`${cfg.path} is not a serial device`);
      expect(fault.fix).toBe('set terminals[0].path to the adapter (ls -l /dev/serial/by-id/)');
    } finally {
      dir.cleanup();
    }
  });
});

/**
 * OPTIONS_RRQ answers: the device options pyzk and zkteco-js ask for ("~SerialNumber"...).
 */
import type { TerminalState } from './terminal-state.js';

const FIXED: Record<string, string> = {
  '~Platform': 'ZMM220_TFT',
  '~DeviceName': 'PunchgateSim',
  '~OS': '1',
  '~PIN2Width': '9',
  '~ExtendFmt': '0',
  '~UserExtFmt': '0',
  '~IsOnlyRFMachine': '0',
  FaceFunOn: '0',
  WorkCode: '0',
  DateFmt: '0',
  MAC: '00:17:61:c8:ec:17',
  IPAddress: '127.0.0.1',
  NetMask: '255.255.255.0',
  GATEIPAddress: '0.0.0.0',
};

/** The option's value, or null for a key this terminal does not know (answered ACK_ERROR). */
export function deviceOption(key: string, state: TerminalState): string | null {
  if (key === '~SerialNumber') return state.serialNumber;
  if (key === '~Firmware' || key === '~FirmVer') return state.firmware;
  if (key === '~ZKFPVersion') return state.fpVersion;
  return Object.hasOwn(FIXED, key) ? (FIXED[key] ?? null) : null;
}

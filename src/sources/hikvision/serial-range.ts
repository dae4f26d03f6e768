/**
 * The end of the serial-number range an event search asks for. Some firmware refuses
 * `beginSerialNo` without `endSerialNo`, so a large one is sent; but firmware differs on how
 * large: some advertise 3,000,000,000 in their capabilities, and one terminal refused
 * 4,294,967,295 (400 badJsonContent naming endSerialNo) while accepting 999,999,999. A refused
 * range is therefore tried again with the largest end the device advertises, then with
 * SMALL_END_SERIAL, before concluding that the firmware has no serial filters at all.
 */
import type { HikvisionClient } from './client.js';
import { HikApiError } from './errors.js';

/** The end asked for first. */
export const END_SERIAL = 3_000_000_000;
/** The smallest end tried: a billion events is more than any terminal records in its life. */
export const SMALL_END_SERIAL = 999_999_999;

/**
 * The device refused the serial range itself (HTTP 400 naming endSerialNo, or naming nothing),
 * not serial filters as such (a refusal naming beginSerialNo says the firmware has none).
 */
export function refusesSerialRange(e: unknown): boolean {
  if (!(e instanceof HikApiError) || e.httpStatus !== 400) return false;
  return /endSerialNo/i.test(e.message) || !/SerialNo/i.test(e.message);
}

/**
 * The next, smaller end to try after `refused`: the device's advertised maximum when it is
 * smaller, else SMALL_END_SERIAL; undefined when there is none left to try.
 */
export async function smallerEndSerial(
  client: HikvisionClient,
  refused: number,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const advertised = await client
    .eventSearchCapabilities(signal)
    .then((c) => c.endSerialMax)
    .catch(() => undefined);
  const candidates = [advertised, SMALL_END_SERIAL].filter((n): n is number => n !== undefined && n >= 1);
  return candidates.find((n) => n < refused);
}

/**
 * The header line of a "glog" USB export: `GLG_001.TXT` (the punches not downloaded yet) or
 * `AGL_001.TXT` (all of them), written by terminals of the ZKTeco-compatible black-and-white
 * family (FK-series firmware sold under many names). Tab-separated, its names say the columns:
 * `No`, `Mchn` or `TMNo` (the machine), `EnNo` (the enrolment number), `Name`, `Mode`, `IOMd`,
 * `INOUT` or `In/Out`, ..., `DateTime`. Any header that names `EnNo` and `DateTime` is one: no
 * punch line or CSV header of another format holds both.
 */
export function isGlogHeader(line: string): boolean {
  const names = line.split('\t').map((n) => n.trim().toLowerCase());
  return names.includes(GLOG_CODE) && names.includes(GLOG_TIME);
}

/** The header names of the two columns a punch is read from (compared in lower case). */
export const GLOG_CODE = 'enno';
export const GLOG_TIME = 'datetime';

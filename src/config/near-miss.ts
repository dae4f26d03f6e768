/**
 * "Did you mean ...?" for a key or a value that is almost one of the accepted ones: the same
 * letters in another case or with `-`/`_`, or one or two letters off (a typo, two swapped letters).
 */

const normal = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');

/** Optimal string alignment distance (Levenshtein plus the swap of two neighbours). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Other names a newcomer gives a terminal or sink kind (the vendor's name, the protocol's, the
 * docs' words "push terminal") or a key, far in letters from the one they mean. Used only where
 * that one is accepted.
 */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  zkteco: 'zk',
  zkt: 'zk',
  essl: 'zk',
  push: 'adms',
  zkpush: 'adms',
  iclock: 'adms',
  pushsdk: 'adms',
  hik: 'hikvision',
  hikvisionisapi: 'hikvision',
  isapi: 'hikvision',
  zkbiotime: 'biotime',
  zkbiosecurity: 'biotime',
  biosecurity: 'biotime',
  rs232: 'serial',
  rs485: 'serial',
  erpnext: 'frappe',
  frappehr: 'frappe',
  // A terminal's address, in the words of its own menus and of other tools (a new-user trial
  // wrote `adress:` and was given the list of every key).
  address: 'host',
  adress: 'host',
  ip: 'host',
  ipaddress: 'host',
  hostname: 'host',
};

/** The accepted word closest to `word`, when it is close enough to be what was meant. */
export function nearMiss(word: string, accepted: readonly string[]): string | undefined {
  const w = normal(word);
  if (!w) return undefined;
  // A secret written inline where the config takes it from a file (`password:` for `passwordFile:`).
  const fromFile = accepted.find((s) => normal(s) === `${w}file`);
  if (fromFile) return fromFile;
  const otherName = OTHER_NAMES[w];
  if (otherName && accepted.includes(otherName)) return otherName;
  let best: { s: string; d: number } | undefined;
  for (const s of accepted) {
    if (s === word) continue;
    const d = distance(w, normal(s));
    if (!best || d < best.d) best = { s, d };
  }
  if (!best) return undefined;
  const allowed = w.length < 3 ? 0 : w.length < 8 ? 1 : 2;
  return best.d <= allowed ? best.s : undefined;
}

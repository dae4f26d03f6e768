/**
 * Parsers of command-line option values (commander's argParser), one of each for every command:
 * a bad value stops the command with commander's "option '--x <n>' argument 'y' is invalid. ...".
 */
import { InvalidArgumentError } from 'commander';

/** A whole number in min..max (a minus sign only where min allows it). */
export function int(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a whole number ${min}..${max}`);
    return n;
  };
}

/** A number of seconds above 0 (fractions allowed). */
export function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds > 0');
  return n;
}

/** A share between 0 and 1 (a fault rate). */
export function probability(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a probability 0..1');
  return n;
}

/** A value among `choices`. */
export function oneOf<T extends string>(choices: readonly T[]) {
  return (v: string): T => {
    if (!(choices as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected ${choices.join(', ')}`);
    return v as T;
  };
}

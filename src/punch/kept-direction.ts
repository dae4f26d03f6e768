import type { StateDirection, TerminalDirection } from '../config/terminals.js';
import { DEFAULT_STATE_DIRECTIONS, directionRuleOf, type DirectionRule, type DirectionTerminal } from './direction.js';

/**
 * A terminal's direction setting as the journal keeps it once the terminal is taken out of the
 * config (src/journal/terminal-directions.ts), and the rule made of it again. The states are kept
 * as numbers (the config's keys resolved for the terminal's kind), only those that differ from the
 * usual meaning, so a kept row needs no terminal kind to be read.
 */
export interface KeptDirectionText {
  direction: string;
  /** JSON: state number -> in / out / none. */
  states: string;
}

const SETTINGS: readonly TerminalDirection[] = ['device', 'in', 'out', 'alternate', 'none'];
const MEANINGS: readonly StateDirection[] = ['in', 'out', 'none'];

/** What the journal keeps of a configured terminal's setting. */
export function keptDirectionOf(t: DirectionTerminal): KeptDirectionText {
  const rule = directionRuleOf(t);
  const states: Record<string, StateDirection> = {};
  for (const [state, meaning] of rule.states) {
    if (DEFAULT_STATE_DIRECTIONS.get(state) !== meaning) states[String(state)] = meaning;
  }
  return { direction: rule.setting, states: JSON.stringify(states) };
}

/**
 * The rule of a kept setting; undefined when the row is not one punchgate wrote (its punches then
 * get the rule of a terminal not in the config, as before the journal kept it).
 */
export function ruleOfKept(k: KeptDirectionText): DirectionRule | undefined {
  const setting = SETTINGS.find((s) => s === k.direction);
  if (setting === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(k.states);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const states = new Map(DEFAULT_STATE_DIRECTIONS);
  for (const [key, value] of Object.entries(parsed)) {
    const meaning = MEANINGS.find((m) => m === value);
    if (!/^\d+$/.test(key) || meaning === undefined) return undefined;
    states.set(Number(key), meaning);
  }
  return { setting, states };
}

/** The kept rule of each terminal, by name, from the journal's rows (made once per rule asked). */
export function keptRules(
  kept: ReadonlyMap<string, KeptDirectionText>,
): (terminal: string) => DirectionRule | undefined {
  const made = new Map<string, DirectionRule | undefined>();
  return (t) => {
    if (!made.has(t)) {
      const k = kept.get(t);
      made.set(t, k ? ruleOfKept(k) : undefined);
    }
    return made.get(t);
  };
}

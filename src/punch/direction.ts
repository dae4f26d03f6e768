import {
  directionStateKey,
  type StateDirection,
  type TerminalConfig,
  type TerminalDirection,
} from '../config/terminals.js';
import type { Direction } from '../sinks/types.js';
import { stateLabel } from './states.js';

/**
 * Which way a punch went (in or out), from its terminal's `direction` setting and the state the
 * terminal recorded with it (src/punch/states.ts: one numbering for every kind of terminal). The
 * one place this is decided: delivery asks it for each punch it hands a sink; `punches` and the
 * export show it. The journal keeps the state as recorded and never a direction, so a changed
 * setting applies to every punch not yet delivered.
 *
 * - `device` (the default): the state through the terminal's `directionStates`, then the usual
 *   meaning (DEFAULT_STATE_DIRECTIONS). A state with no meaning, or none recorded: no direction.
 * - `in` / `out`: every punch of the terminal, whatever its state (an entrance, an exit).
 * - `alternate`: no direction is sent. It is a sink's job: Odoo pairs a person's punches in turn
 *   (in, out, in...) within its longest shift, as it pairs any punch without a direction; a sink
 *   that takes a direction per punch (Frappe's log_type) sends none. The setting says, in
 *   `punches` and on the page, that the pairing is meant.
 * - `none`: no direction is sent, whatever the terminal recorded.
 */

/** The usual meaning of each state (ZKTeco's): breaks and overtime count as going out and in. */
export const DEFAULT_STATE_DIRECTIONS: ReadonlyMap<number, StateDirection> = new Map([
  [0, 'in'], // check-in
  [1, 'out'], // check-out
  [2, 'out'], // break-out
  [3, 'in'], // break-in
  [4, 'in'], // overtime-in
  [5, 'out'], // overtime-out
  [255, 'none'], // undefined
]);

/** What of a terminal's config decides its punches' direction. */
export type DirectionTerminal = Pick<TerminalConfig, 'name' | 'kind' | 'direction' | 'directionStates'>;

/** A terminal's direction setting made ready for use: its states' meanings, defaults included. */
export interface DirectionRule {
  setting: TerminalDirection;
  states: ReadonlyMap<number, StateDirection>;
}

/** The rule of a terminal not in the config (an import's own name, a terminal since removed). */
export const DEFAULT_DIRECTION_RULE: DirectionRule = { setting: 'device', states: DEFAULT_STATE_DIRECTIONS };

/** The rule of one terminal (undefined: DEFAULT_DIRECTION_RULE). */
export function directionRuleOf(t: DirectionTerminal | undefined): DirectionRule {
  if (t === undefined) return DEFAULT_DIRECTION_RULE;
  const setting = t.direction ?? 'device';
  if (t.directionStates === undefined || Object.keys(t.directionStates).length === 0) {
    return setting === 'device' ? DEFAULT_DIRECTION_RULE : { setting, states: DEFAULT_STATE_DIRECTIONS };
  }
  const states = new Map(DEFAULT_STATE_DIRECTIONS);
  for (const [key, meaning] of Object.entries(t.directionStates)) {
    const state = directionStateKey(t.kind, key);
    // The config check refused any other key: one that slipped through changes nothing.
    if (typeof state === 'number') states.set(state, meaning);
  }
  return { setting, states };
}

/** The direction a sink is given for a punch with `punchState` under `rule`; undefined: none. */
export function resolveDirection(rule: DirectionRule, punchState: number | null | undefined): Direction | undefined {
  switch (rule.setting) {
    case 'in':
    case 'out':
      return rule.setting;
    case 'alternate':
    case 'none':
      return undefined;
    case 'device': {
      if (punchState === null || punchState === undefined) return undefined;
      const meaning = rule.states.get(punchState);
      return meaning === 'in' || meaning === 'out' ? meaning : undefined;
    }
  }
}

/** What delivery calls per punch: the terminals' rules are made once, looked up by name. */
export type DirectionOf = (punch: { terminal: string; punchState: number | null }) => Direction | undefined;

/** The direction of each punch, by its terminal's setting in `terminals` (the config's list). */
export function directionResolver(terminals: readonly DirectionTerminal[]): DirectionOf {
  const rules = new Map(terminals.map((t) => [t.name, directionRuleOf(t)]));
  return (p) => resolveDirection(rules.get(p.terminal) ?? DEFAULT_DIRECTION_RULE, p.punchState);
}

/** A punch's state and direction as `punches` and the export show them. */
export interface ShownDirection {
  /** The state in words ("check-out"), '' when the terminal recorded none. */
  stateName: string;
  /** What sinks are given: in, out, or null (none). */
  direction: Direction | null;
  /** The terminal's setting it came from. */
  directionSetting: TerminalDirection;
}

/** How to show punches' directions: per terminal of `terminals`, made once. */
export function directionShower(
  terminals: readonly DirectionTerminal[],
  /** The rule a terminal taken out of the config had (the journal's terminal_directions); none by default. */
  kept: (terminal: string) => DirectionRule | undefined = () => undefined,
): (p: { terminal: string; punchState: number | null }) => ShownDirection {
  const rules = new Map(terminals.map((t) => [t.name, directionRuleOf(t)]));
  return (p) => {
    const rule = rules.get(p.terminal) ?? kept(p.terminal) ?? DEFAULT_DIRECTION_RULE;
    return {
      stateName: stateLabel(p.punchState),
      direction: resolveDirection(rule, p.punchState) ?? null,
      directionSetting: rule.setting,
    };
  };
}

/** One word for a table: in, out, alternate (paired by the sink), or '-' (none). */
export function directionWord(d: ShownDirection): string {
  return d.direction ?? (d.directionSetting === 'alternate' ? 'alternate' : '-');
}

/**
 * One badge card for two people: the terminal books a swipe to whichever user it finds first, so
 * the other person's punches go out under the wrong code. A roster that gives one card to two
 * codes, or a card that another user on the terminal keeps, must never put the card on a second user.
 */
import { describe, expect, it } from 'vitest';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();

describe('sync-users never gives one card to two users of a terminal', () => {
  it('a roster that gives one card to two codes: neither gets it, both rows said, exit 65', async () => {
    const { gate } = await env.start({ gate: { users: [] } });
    const roster = env.writeRoster(['code,name,card', '1,Ann,555', '2,Bob,555', '3,Cy,777']);
    const run = await env.sync({ roster });
    expect(usersOf(gate)).toEqual(['1 3 Cy 777 0']);
    expect(run.code).toBe(65);
    expect(run.err).toContain(
      `${roster}:3: card 555 is also ${roster}:2's (code 1): one card opens for one person only; neither row is used (row skipped)`,
    );
    expect(run.err).toContain(`${roster}:2: card 555 is also ${roster}:3's (code 2)`);
  });

  it('a card that a user the run leaves alone holds: not given to a second user; the rest goes, exit 1', async () => {
    const { gate } = await env.start({
      gate: {
        users: [
          { uid: 1, userId: '9', name: 'Visitor', card: 777 },
          { uid: 2, userId: '1', name: 'Ann' },
          { uid: 3, userId: '8', name: 'Spare badge', card: 888 },
        ],
      },
    });
    const roster = env.writeRoster(['code,name,card', '1,Ann Lee,777', '2,Bob,888']);
    const run = await env.sync({ roster });
    // Ann is renamed without the card; Bob is added without it; the badges keep theirs.
    expect(usersOf(gate)).toEqual(['1 9 Visitor 777 0', '2 1 Ann Lee 0 0', '3 8 Spare badge 888 0', '4 2 Bob 0 0']);
    expect(run.out).toContain('card 777 not given: this terminal holds it for user 9 (uid 1)');
    expect(run.out).toContain('card 888 not given: this terminal holds it for user 8 (uid 3)');
    expect(run.code).toBe(1);
  });

  it('a leaver’s card handed on to a new hire in the same roster is no clash: the hire gets it', async () => {
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '3', name: 'Chen', card: 555 }] } });
    const roster = env.writeRoster(['code,name,card,active', '3,Chen,555,0', '4,Dee,555,1']);
    const run = await env.sync({ roster });
    expect(usersOf(gate)).toEqual(['2 4 Dee 555 0']);
    expect(run.code).toBe(0);
  });
});

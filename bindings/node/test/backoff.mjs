// Pauses between looks at a state that comes without an event (the library's stats,
// a collection): a few turns of the loop first, which is all most states need, then
// timers doubling from 1 ms to 50 ms, so that a wait which lasts costs little. The
// caller still waits for its condition; time is never what it waits for.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

const turnsFirst = 8;
const longestPause = 50;

/** An endless series of pauses: each call of one returns a promise. */
export function* backoff() {
  for (let turn = 0; turn < turnsFirst; turn += 1) yield () => nextTurn();
  for (let ms = 1; ; ms = Math.min(ms * 2, longestPause)) yield () => sleep(ms);
}

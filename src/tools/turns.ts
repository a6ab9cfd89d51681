// Calls spread over event-loop turns: at most PER_TURN bash calls begin in one turn of this thread's loop.
//
// A call's preparation and launch are a few tenths of a millisecond of JavaScript, but they wake the threads that
// start the command, which take the CPU from the event loop meanwhile. A client that sends hundreds of calls at
// once (a batch, or hundreds of sessions starting together) would otherwise have every one of them prepared in the
// one turn that received them: 400 calls held the loop for 90–150 ms on 2 cores, two thirds of it waiting for a CPU
// (with 4 a turn, its turns took 1–14 ms). The rest begin in the turns that follow, in the order they came, with I/O
// served in between.

/** Enough that a few calls sent together start at once, few enough that a turn of them stays within milliseconds. */
export const PER_TURN = 4;

/** Calls begun in the current turn. */
let begun = 0;
/** Marks the current turn's end, once a call began in it: held against the process's exit only while calls wait. */
let turnEnd: NodeJS.Immediate | undefined;
/** Calls waiting for a later turn, oldest first from `head`. */
let waiting: (() => void)[] = [];
let head = 0;

/** Resolves when the calling call may begin; `undefined` (no wait at all) while this turn has room. */
export function callTurn(): Promise<void> | undefined {
  // A turn has room only once every waiting call has begun: each turn begins waiting calls first.
  if (begun < PER_TURN) {
    begun++;
    endOfTurn();
    return undefined;
  }
  endOfTurn().ref();
  return new Promise((resolve) => waiting.push(resolve));
}

/** The current turn's count ends with it: the next begins in the loop's check phase, after the I/O it polled. */
function endOfTurn(): NodeJS.Immediate {
  if (turnEnd === undefined) {
    turnEnd = setImmediate(nextTurn);
    // A count to reset is no reason to keep the process: an idle runtime leaves nothing behind its last call.
    turnEnd.unref();
  }
  return turnEnd;
}

function nextTurn(): void {
  turnEnd = undefined;
  begun = 0;
  while (begun < PER_TURN && head < waiting.length) {
    begun++;
    waiting[head++]!();
  }
  if (head === waiting.length) {
    waiting = [];
    head = 0;
  }
  if (begun === 0) return;
  const end = endOfTurn();
  if (head < waiting.length) end.ref();
}

/** How long work may run back to back before the event loop gets a turn for I/O and the UI. */
const SLICE_MS = 10;

/**
 * Keeps the event loop free while many proxies need work at once (a storm of connections, whose
 * first requests arrive together, or every proxy of a mesh generating after one Dataplane
 * changed): that work would otherwise all run in one turn, one piece after the other, holding up
 * every other request, ACK and API call meanwhile.
 *
 * A slice starts with the first caller of an event-loop turn. `yieldWhenBusy` resolves at once
 * while the slice has room, and otherwise waits for a later turn, as many turns as it takes:
 * the callers deferred together resume together and share the next slice.
 */
export class TimeSlice {
  readonly #sliceMs: number;
  #startedAt: number | undefined;

  constructor(sliceMs = SLICE_MS) {
    this.#sliceMs = sliceMs;
  }

  async yieldWhenBusy(): Promise<void> {
    while (!this.#hasRoom()) await new Promise((resolve) => setImmediate(resolve));
  }

  #hasRoom(): boolean {
    const now = performance.now();
    if (this.#startedAt === undefined) {
      this.#startedAt = now;
      // The check phase runs this before any caller deferred from this turn resumes.
      setImmediate(() => (this.#startedAt = undefined));
      return true;
    }
    return now - this.#startedAt < this.#sliceMs;
  }
}

/** The one slice the ADS streams' requests and the proxies' generations share: they all run on one event loop. */
export const EVENT_LOOP_SLICE = new TimeSlice();

// What a person typed into terminal jobs from the console, held until the model's next read of each job says so.
import { terminalTexts, TYPED_SHOWN } from '../contract/index.js';

export class PersonTyped {
  /** Per job, kept to what a read shows (one character more marks the cut). */
  readonly #typed = new Map<string, string>();

  note(jobId: string, typed: string): void {
    this.#typed.set(jobId, ((this.#typed.get(jobId) ?? '') + typed).slice(0, TYPED_SHOWN + 1));
  }

  /** The line that leads the model's next read, once; undefined when nobody typed. */
  take(jobId: string): string | undefined {
    const typed = this.#typed.get(jobId);
    if (typed === undefined) return undefined;
    this.#typed.delete(jobId);
    const shown = JSON.stringify(typed.slice(0, TYPED_SHOWN)) + (typed.length > TYPED_SHOWN ? '…' : '');
    return terminalTexts.personTyped(shown);
  }

  forget(jobId: string): void {
    this.#typed.delete(jobId);
  }
}

/**
 * The work list of one claimed batch. A batch the HRMS refuses as a whole is split in halves,
 * recursively, until the punch that causes the refusal stands alone; the halves keep log-time
 * order (first half first), so punches still go out oldest first.
 */
export class SplitQueue<T> {
  private readonly parts: T[][];

  constructor(batch: readonly T[]) {
    this.parts = batch.length > 0 ? [[...batch]] : [];
  }

  /** The next part to send, or undefined when done. */
  next(): T[] | undefined {
    return this.parts.shift();
  }

  /** Puts the two halves of a refused part at the front of the list. */
  split(part: readonly T[]): void {
    const mid = Math.ceil(part.length / 2);
    this.parts.unshift(part.slice(0, mid), part.slice(mid));
  }

  /** Everything not yet sent (to release it), emptying the list. */
  drainRemaining(): T[] {
    return this.parts.splice(0).flat();
  }

  get splitting(): boolean {
    return this.parts.length > 0;
  }
}

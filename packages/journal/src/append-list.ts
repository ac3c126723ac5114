/**
 * An immutable list that grows by `append`, which returns a new list and leaves this one as it was.
 *
 * Lists appended from one another share one array: a list sees only its first `length` items, and an
 * append writes past every list's end, so no list ever sees a change. Appending to a list that is not
 * the longest of its family (a second branch) copies it first. Appends along one line of snapshots,
 * the way a run grows, cost O(1) each instead of a copy of the whole list.
 */
export class AppendList<T> implements Iterable<T> {
  readonly #items: T[];
  readonly length: number;

  private constructor(items: T[], length: number) {
    this.#items = items;
    this.length = length;
    Object.freeze(this);
  }

  static empty<T>(): AppendList<T> {
    return new AppendList<T>([], 0);
  }

  append(item: T): AppendList<T> {
    // Another list already wrote past this one's end: branch off with a copy of what this one sees.
    const items = this.#items.length === this.length ? this.#items : this.#items.slice(0, this.length);
    items.push(item);
    return new AppendList(items, this.length + 1);
  }

  /** The item at `index` (negative counts from the end), or undefined. */
  at(index: number): T | undefined {
    const position = index < 0 ? this.length + index : index;
    return position >= 0 && position < this.length ? this.#items[position] : undefined;
  }

  /** A new array of the items from `start` to `end` (defaults: the whole list), as Array.prototype.slice. */
  slice(start = 0, end = this.length): T[] {
    const clamp = (index: number) => Math.min(this.length, Math.max(0, index < 0 ? this.length + index : index));
    return this.#items.slice(clamp(start), clamp(end));
  }

  /** A new array of every item. */
  toArray(): T[] {
    return this.#items.slice(0, this.length);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let index = 0; index < this.length; index += 1) yield this.#items[index]!;
  }
}

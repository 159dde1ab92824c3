/**
 * Atom candidates (the kept named children of containers) as columns: a big file has hundreds
 * of thousands of them, and typed columns keep them out of the garbage collector's way.
 * Rows and columns are 0-based (columns in UTF-16 code units), as tree-sitter gives them.
 */
export class AtomCandidates {
  count = 0;
  types: string[] = [];
  startRow: Int32Array;
  startColumn: Int32Array;
  endRow: Int32Array;
  endColumn: Int32Array;
  /** Rows of the container the candidate is a child of. */
  containerStart: Int32Array;
  containerEnd: Int32Array;

  constructor(capacity = 256) {
    this.startRow = new Int32Array(capacity);
    this.startColumn = new Int32Array(capacity);
    this.endRow = new Int32Array(capacity);
    this.endColumn = new Int32Array(capacity);
    this.containerStart = new Int32Array(capacity);
    this.containerEnd = new Int32Array(capacity);
  }

  #grow(): void {
    const grow = (column: Int32Array) => {
      const bigger = new Int32Array(column.length * 2);
      bigger.set(column);
      return bigger;
    };
    this.startRow = grow(this.startRow);
    this.startColumn = grow(this.startColumn);
    this.endRow = grow(this.endRow);
    this.endColumn = grow(this.endColumn);
    this.containerStart = grow(this.containerStart);
    this.containerEnd = grow(this.containerEnd);
  }

  /** Appends one candidate. */
  push(
    type: string,
    startRow: number,
    startColumn: number,
    endRow: number,
    endColumn: number,
    containerStart: number,
    containerEnd: number,
  ): void {
    if (this.count === this.startRow.length) this.#grow();
    const at = this.count++;
    this.types.push(type);
    this.startRow[at] = startRow;
    this.startColumn[at] = startColumn;
    this.endRow[at] = endRow;
    this.endColumn[at] = endColumn;
    this.containerStart[at] = containerStart;
    this.containerEnd[at] = containerEnd;
  }
}

/** Row and column of a text index: the start index of every row (rows end at `\n`). */
export class LineTable {
  readonly #starts: Int32Array;

  constructor(text: string) {
    let count = 1;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
    const starts = new Int32Array(count);
    let row = 1;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1))
      starts[row++] = at + 1;
    this.#starts = starts;
  }

  /** The 0-based row holding text index `index`. */
  rowOf(index: number): number {
    const starts = this.#starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((starts[middle] as number) <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The index where row `row` starts. */
  startOf(row: number): number {
    return this.#starts[row] as number;
  }
}

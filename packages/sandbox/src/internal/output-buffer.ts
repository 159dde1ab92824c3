/**
 * Keeps the first `capBytes` bytes of a stream and counts the rest, so the parent's memory
 * stays bounded whatever the child prints.
 */
export class OutputBuffer {
  readonly #capBytes: number;
  readonly #chunks: Buffer[] = [];
  #keptBytes = 0;
  #totalBytes = 0;

  constructor(capBytes: number) {
    this.#capBytes = capBytes;
  }

  /** Adds a chunk: the part below the cap is kept, everything is counted. */
  push(chunk: Buffer): void {
    this.#totalBytes += chunk.length;
    const room = this.#capBytes - this.#keptBytes;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    // Copy a slice so the big chunk it came from can be freed.
    this.#chunks.push(kept === chunk ? chunk : Buffer.from(kept));
    this.#keptBytes += kept.length;
  }

  /** Bytes seen in total, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Bytes kept. */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /** True when bytes were dropped. */
  get truncated(): boolean {
    return this.#totalBytes > this.#keptBytes;
  }

  /** The kept bytes as UTF-8 text, followed by a truncation marker when bytes were dropped. */
  text(): string {
    const body = Buffer.concat(this.#chunks, this.#keptBytes).toString("utf8");
    if (!this.truncated) return body;
    return `${body}\n${truncationMarker(this.#keptBytes, this.#totalBytes)}\n`;
  }
}

/** The line appended to truncated output. */
export function truncationMarker(keptBytes: number, totalBytes: number): string {
  return `[distdebug: output truncated: kept ${keptBytes} of ${totalBytes} bytes]`;
}

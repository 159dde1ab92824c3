import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OutputBuffer, truncationMarker } from "./output-buffer.js";

describe("OutputBuffer", () => {
  it("keeps exactly the first cap bytes and counts all of them, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 300 }),
        (chunks, cap) => {
          const buffer = new OutputBuffer(cap);
          for (const chunk of chunks) buffer.push(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          expect(buffer.totalBytes).toBe(all.length);
          expect(buffer.keptBytes).toBe(Math.min(cap, all.length));
          expect(buffer.truncated).toBe(all.length > cap);
        },
      ),
    );
  });

  it("adds a marker naming kept and total bytes when it truncates", () => {
    const buffer = new OutputBuffer(5);
    buffer.push(Buffer.from("hello "));
    buffer.push(Buffer.from("world"));
    expect(buffer.text()).toBe(`hello\n${truncationMarker(5, 11)}\n`);
    const whole = new OutputBuffer(100);
    whole.push(Buffer.from("hello"));
    expect(whole.text()).toBe("hello");
  });
});

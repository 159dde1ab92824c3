import { describe, expect, it } from "vitest";
import { captureIO } from "../testing/capture-io.js";
import { inertText, TERMINAL, terminalIO } from "./terminal-text.js";

describe("terminalIO", () => {
  it("passes the CLI's own controls and makes every other control inert", () => {
    const captured = captureIO();
    const io = terminalIO(captured);
    io.stderr(TERMINAL.clearLine);
    io.stderr("name\r\u001b[2K\u001b[32mok\u009b2K\u007f\b\ttab\n");
    expect(captured.err()).toBe(
      "\r\u001b[2Kname\\u000d\\u001b[2K\\u001b[32mok\\u009b2K\\u007f\\u0008\ttab\n",
    );
  });

  it("keeps --json valid and equal: the replacement is the character's own JSON escape", () => {
    const value = { name: "a\u001b[2K\u009b\u007fb" };
    const written = inertText(`${JSON.stringify(value)}\n`);
    expect(written).not.toMatch(/[\u007f-\u009f]/);
    expect(JSON.parse(written)).toEqual(value);
  });
});

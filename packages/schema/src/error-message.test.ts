import { describe, expect, it } from "vitest";
import { errorHeadline, errorMessage } from "./error-message.js";
import { DistDebugError } from "./errors.js";

describe("errorHeadline", () => {
  it("is the first line of the message of an error, a DistDebugError or a string", () => {
    const error = new DistDebugError({
      code: "INVALID_FILE",
      message: "x.json: not a diagnosis\n  $.blocks[0].path: expected a string",
    });
    expect(errorHeadline(error)).toBe("x.json: not a diagnosis");
    expect(errorMessage(error)).toContain("$.blocks[0].path");
    expect(errorHeadline(new Error("one line"))).toBe("one line");
    expect(errorHeadline("first\nsecond")).toBe("first");
    expect(errorHeadline("")).toBe("");
  });
});

describe("DistDebugError.hasCode", () => {
  it("is true only for a DistDebugError with that code", () => {
    const usage = new DistDebugError({ code: "USAGE", message: "--out is required" });
    expect(DistDebugError.hasCode(usage, "USAGE")).toBe(true);
    expect(DistDebugError.hasCode(usage, "INVALID_FILE")).toBe(false);
    expect(DistDebugError.hasCode(Object.assign(new Error("x"), { code: "USAGE" }), "USAGE")).toBe(
      false,
    );
  });
});

import { describe, expect, it } from "vitest";
import { AttemptError } from "./attempt.js";
import { ERROR_CODES } from "./errors.js";
import { jsonSchemaOf } from "./json-schema.js";

describe("attempt.json's error", () => {
  it("takes every code of the closed union, the runner's own included", () => {
    for (const code of ["NO_DIAGNOSIS", "UNSAFE_AGENT_FILE", "LIMIT_EXCEEDED", "AGENT_ERROR"])
      expect(AttemptError.parse({ code, message: "m" })).toEqual({ code, message: "m" });
  });

  it("reads a code outside the union as LEGACY, keeping the message", () => {
    expect(AttemptError.parse({ code: "AGENT_TIMEOUT", message: "took too long" })).toEqual({
      code: "LEGACY",
      message: "took too long",
    });
  });

  it("still refuses a missing or non-string code", () => {
    expect(AttemptError.safeParse({ message: "m" }).success).toBe(false);
    expect(AttemptError.safeParse({ code: 3, message: "m" }).success).toBe(false);
  });

  it("lists the union in the JSON Schema, and any other string as the LEGACY way in", () => {
    const schema = jsonSchemaOf("attempt") as {
      properties: { error: { properties: { code: { anyOf: [{ enum: string[] }, object] } } } };
    };
    const [union, legacy] = schema.properties.error.properties.code.anyOf;
    expect(union.enum).toEqual([...ERROR_CODES]);
    expect(legacy).toMatchObject({ type: "string" });
  });
});

import { errorMessage } from "../error-message.js";
/** Decodes bytes or passes a string through; strips a UTF-8 BOM. */
export function toText(input: string | Uint8Array): string {
  const text = typeof input === "string" ? input : new TextDecoder("utf-8").decode(input);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Where in the text a JSON.parse error points, as `line L, column C`, if it says. */
export function jsonErrorLocation(text: string, error: unknown): string | undefined {
  const message = errorMessage(error);
  const match = /position (\d+)/.exec(message);
  if (!match) return undefined;
  const position = Number(match[1]);
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

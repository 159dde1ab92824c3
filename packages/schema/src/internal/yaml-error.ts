import { LineCounter, Parser, type YAMLError } from "yaml";
import { errorHeadline } from "../error-message.js";

/** A place in a text: 1-based line and column. */
interface Place {
  line: number;
  col: number;
}

/** An opener the text never closes: a flow `[`/`{` or a quote. */
interface Unclosed {
  offset: number;
  what: string;
}

const closers: Record<string, string> = { "[": "]", "{": "}", '"': '"', "'": "'" };

/** Every flow collection or quoted scalar of the CST that the text leaves open. */
function unclosedOpeners(text: string): Unclosed[] {
  const found: Unclosed[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    const token = node as Record<string, unknown>;
    if (token.type === "flow-collection" && typeof token.offset === "number") {
      const open = (token.start as { source?: string } | undefined)?.source ?? "[";
      const ends = Array.isArray(token.end) ? (token.end as { source?: string }[]) : [];
      if (!ends.some((end) => end.source === closers[open]))
        found.push({
          offset: token.offset,
          what: `the ${open} opened here has no ${closers[open]}`,
        });
    }
    if (
      (token.type === "double-quoted-scalar" || token.type === "single-quoted-scalar") &&
      typeof token.source === "string" &&
      typeof token.offset === "number"
    ) {
      const quote = token.source[0] ?? '"';
      const body = token.source.slice(1);
      if (!body.replaceAll(`${quote}${quote}`, "").replaceAll(`\\${quote}`, "").includes(quote))
        found.push({ offset: token.offset, what: `the ${quote} opened here is never closed` });
    }
    for (const value of Object.values(token)) if (typeof value === "object") visit(value);
  };
  for (const token of new Parser().parse(text)) visit(token);
  return found;
}

/** Lines `line - 2` to `line` with numbers, and a caret under `col` of `line`. */
function codeFrame(text: string, at: Place): string {
  const lines = text.split(/\r?\n/);
  const first = Math.max(1, at.line - 2);
  const width = String(at.line).length;
  const out: string[] = [];
  for (let number = first; number <= at.line; number++) {
    const marker = number === at.line ? ">" : " ";
    out.push(`${marker} ${String(number).padStart(width)} | ${lines[number - 1] ?? ""}`);
  }
  out.push(`  ${" ".repeat(width)} | ${" ".repeat(Math.max(0, at.col - 1))}^`);
  return out.join("\n");
}

/**
 * The message of a YAML syntax error: where the mistake is (an unclosed quote or bracket is
 * reported where it opens, not where the parser gave up, often lines later), what the parser
 * said, and a code frame of the lines up to that place.
 */
export function describeYamlError(
  text: string,
  error: YAMLError,
): { message: string; line: number } {
  const counter = new LineCounter();
  counter.addNewLine(0);
  for (let index = text.indexOf("\n"); index >= 0; index = text.indexOf("\n", index + 1))
    counter.addNewLine(index + 1);
  const opener = unclosedOpeners(text)
    .filter((item) => item.offset <= error.pos[0])
    .at(-1);
  const at: Place = opener ? counter.linePos(opener.offset) : counter.linePos(error.pos[0]);
  const said = errorHeadline(error).replace(/ at line \d+, column \d+:?$/, "");
  const message = `line ${at.line}, column ${at.col}: ${opener ? `${opener.what} (${said})` : said}\n${codeFrame(text, at)}`;
  return { message, line: at.line };
}

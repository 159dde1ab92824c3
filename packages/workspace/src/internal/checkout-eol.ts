/**
 * End-of-line conversion as `git checkout` applies it from `.gitattributes`, so a prepared
 * workspace holds the bytes a checkout gives. With git's defaults on Linux (`core.autocrlf`
 * unset, `core.eol` native = lf) the only conversion a checkout makes is LF -> CRLF for
 * paths whose attributes say `eol=crlf`: an unset `text` (`-text`, `binary`) never converts;
 * `text=auto` converts only content that looks like text and has no CR already; a set or
 * unspecified `text` converts every lone LF. Other attributes (filters,
 * working-tree-encoding) are not applied.
 */

type TextState = "set" | "unset" | "auto" | undefined;

interface Rule {
  /** The folder of the `.gitattributes` file, "" for the root, else "a/b/". */
  base: string;
  matches: (path: string) => boolean;
  text?: TextState;
  eol?: "crlf" | "lf" | undefined;
}

/**
 * How a checkout converts a file's line endings: `""` not at all, `crlf` every lone LF,
 * `crlf-auto` every lone LF of content that looks like text and has no CR (`text=auto`).
 */
export type EolVariant = "" | "crlf" | "crlf-auto";

/** The attributes that decide a checkout's line endings, per path. */
export interface EolRules {
  /** The bytes a checkout writes for `path` (repository-relative) whose blob is `content`. */
  convert(path: string, content: Buffer): Buffer;
  /** How a checkout converts `path`: the same variant and blob give the same bytes. */
  variant(path: string): EolVariant;
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === "*") {
      if (glob[index + 1] === "*") {
        const slash = glob[index + 2] === "/";
        source += slash ? "(?:.*/)?" : ".*";
        index += slash ? 2 : 1;
      } else source += "[^/]*";
    } else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = glob.indexOf("]", index + 1);
      if (end < 0) source += "\\[";
      else {
        source += `[${glob
          .slice(index + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        index = end;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** A matcher for one gitattributes pattern, relative to `base`. */
function patternMatcher(pattern: string, base: string): (path: string) => boolean {
  const anchored = pattern.includes("/");
  const regexp = globToRegExp(pattern.replace(/^\//, ""));
  return (path) => {
    if (!path.startsWith(base)) return false;
    const relative = path.slice(base.length);
    if (anchored) return regexp.test(relative);
    return regexp.test(relative.slice(relative.lastIndexOf("/") + 1));
  };
}

function applyAttribute(rule: Rule, attribute: string): void {
  if (attribute === "binary" || attribute === "-text" || attribute === "-crlf") rule.text = "unset";
  else if (attribute === "text" || attribute === "crlf") rule.text = "set";
  else if (attribute === "text=auto") rule.text = "auto";
  else if (attribute === "eol=crlf") rule.eol = "crlf";
  else if (attribute === "eol=lf") rule.eol = "lf";
  else if (attribute === "!text") rule.text = undefined;
}

/** Parses one `.gitattributes` file found in folder `base` ("" or "dir/"). */
function parseAttributes(text: string, base: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith("[attr]")) continue;
    const [pattern, ...attributes] = line.split(/\s+/);
    if (!pattern || pattern.startsWith("!")) continue;
    const rule: Rule = { base, matches: patternMatcher(pattern, base) };
    for (const attribute of attributes) applyAttribute(rule, attribute);
    if (rule.text !== undefined || rule.eol !== undefined || attributes.includes("!text"))
      rules.push(rule);
  }
  return rules;
}

interface Stats {
  loneLf: number;
  crlf: number;
  loneCr: number;
  binary: boolean;
}

function gatherStats(content: Buffer): Stats {
  const stats: Stats = { loneLf: 0, crlf: 0, loneCr: 0, binary: false };
  for (let index = 0; index < content.length; index++) {
    const byte = content[index];
    if (byte === 0x0d) {
      if (content[index + 1] === 0x0a) {
        stats.crlf += 1;
        index += 1;
      } else stats.loneCr += 1;
    } else if (byte === 0x0a) stats.loneLf += 1;
    else if (byte === 0) stats.binary = true;
  }
  return stats;
}

function toCrlf(content: Buffer, loneLf: number): Buffer {
  const out = Buffer.allocUnsafe(content.length + loneLf);
  let at = 0;
  for (let index = 0; index < content.length; index++) {
    const byte = content[index]!;
    if (byte === 0x0a && (index === 0 || content[index - 1] !== 0x0d)) out[at++] = 0x0d;
    out[at++] = byte;
  }
  return out;
}

function resolve(rules: readonly Rule[], path: string): { text: TextState; eol?: "crlf" | "lf" } {
  let text: TextState;
  let eol: "crlf" | "lf" | undefined;
  let textSeen = false;
  let eolSeen = false;
  // Deeper files and later lines win: scan from the most specific rule backwards.
  for (let index = rules.length - 1; index >= 0 && !(textSeen && eolSeen); index--) {
    const rule = rules[index]!;
    if (!rule.matches(path)) continue;
    if (!textSeen && rule.text !== undefined) {
      text = rule.text;
      textSeen = true;
    }
    if (!eolSeen && rule.eol !== undefined) {
      eol = rule.eol;
      eolSeen = true;
    }
  }
  return eol === undefined ? { text } : { text, eol };
}

/**
 * Builds the conversion from the `.gitattributes` files of a tree (path -> content, the
 * path of the file itself, e.g. `.gitattributes` or `bin/.gitattributes`).
 */
export function eolRules(attributeFiles: ReadonlyMap<string, Buffer>): EolRules {
  const ordered = [...attributeFiles.keys()].sort(
    (a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b),
  );
  const rules = ordered.flatMap((file) =>
    parseAttributes(
      attributeFiles.get(file)!.toString("utf8"),
      file.slice(0, file.lastIndexOf("/") + 1),
    ),
  );
  const variant = (path: string): EolVariant => {
    if (rules.length === 0) return "";
    const { text, eol } = resolve(rules, path);
    if (eol !== "crlf" || text === "unset") return "";
    return text === "auto" ? "crlf-auto" : "crlf";
  };
  return {
    variant,
    convert(path, content) {
      return convertEol(variant(path), content);
    },
  };
}

/** The bytes a checkout writes for a blob `content` under the conversion `variant`. */
export function convertEol(variant: EolVariant, content: Buffer): Buffer {
  if (variant === "") return content;
  const stats = gatherStats(content);
  if (stats.loneLf === 0) return content;
  // `text=auto` leaves binary content and content that already has CRs alone; an explicit
  // or unspecified `text` with `eol=crlf` converts every lone LF.
  if (variant === "crlf-auto" && (stats.binary || stats.crlf > 0 || stats.loneCr > 0))
    return content;
  return toCrlf(content, stats.loneLf);
}

/**
 * Stack frames and `file:line` references in an incident's artifacts, in the shapes the
 * catalog's systems print: Java and Scala (`at pkg.Class.method(File.java:12)`), Python
 * (`File "x.py", line 12, in f`), Go (`pkg.(*T).M(...)` then `\t/path/x.go:12 +0x1f`), Rust
 * backtraces and panics (`at ./src/x.rs:12:5`, `panicked at src/x.rs:12:5`), gdb frames
 * (`#3 0x... in f (...) at src/x.c:12`), symbolized frames without a line
 * (`redis-server *:6379(processCommand+0x2d)[0x55...]`), and bare `x.go:12` references
 * (log callers such as zap's `"caller":"membership/cluster.go:441"`).
 */

/** One frame or reference found in an artifact. */
export interface FrameReference {
  /** 1-based line of the artifact it is on. */
  readonly artifactLine: number;
  /** The frame as written, trimmed and shortened, for messages. */
  readonly text: string;
  /** The file as the frame names it: a path suffix ("org/x/Foo.java", "/build/etcd/x.go"), or only a function for line-less frames. */
  readonly file?: string;
  readonly line?: number;
  /** The function or method the frame names, when it names one. */
  readonly method?: string;
  /** Java and Scala: the frame's package ("org.apache.zookeeper.server"). */
  readonly javaPackage?: string;
  /** Certainly outside the project (a Go module cache, the Rust toolchain, a JDK module). */
  readonly external?: boolean;
}

const JAVA_FRAME =
  /\bat\s+(?:\S*\/)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\.([\w$<>-]+)\(([^()]*)\)/;
const PYTHON_FRAME = /File "([^"]+)", line (\d+)(?:, in (\S+))?/;
const GO_FILE_LINE = /^\s+(\/?[^\s:]+\.go):(\d+)(?:\s|$)/;
const RUST_AT = /^\s*at\s+(\S+\.rs):(\d+)(?::\d+)?\s*$/;
const RUST_FUNCTION = /^\s*\d+:\s+(\S+)/;
const RUST_PANIC = /panicked at (?:'.*?', |".*?", )?(\S+\.rs):(\d+)(?::\d+)?/;
const GDB_FRAME = /#\d+\s+(?:0x[0-9a-fA-F]+\s+in\s+)?([\w:~<>]+)\s*\(.*\)\s+at\s+(\S+):(\d+)/;
const SYMBOL_ONLY = /^\s*(\S*)[^(]*\(([A-Za-z_]\w*)\+0x[0-9a-fA-F]+\)\s*\[0x[0-9a-fA-F]+\]/;
// A relative path, or an absolute build path as addr2line prints it (`/__w/x/x/src/a.cc:532`).
const BARE_REFERENCE =
  /(?<![\w/.-])(\/?(?:[\w.-]+\/)*[\w.-]+\.(?:go|rs|java|scala|py|c|cc|cpp|h|hpp)):(\d+)(?![\d])/g;

function shorten(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 120 ? `${trimmed.slice(0, 117)}...` : trimmed;
}

/** The method a JVM frame names, as it appears in the source (`<init>` is the class). */
function javaMethod(className: string, method: string): string | undefined {
  if (method === "<clinit>" || method.startsWith("access$")) return undefined;
  if (method === "<init>") return className.split(/[.$]/).pop();
  const lambda = /^lambda\$(.+?)\$\d+$/.exec(method);
  if (lambda) return lambda[1] === "new" ? undefined : lambda[1];
  if (/^\$anonfun\$/.test(method)) return method.split("$")[2] || undefined;
  return method.includes("$") ? method.split("$")[0] || undefined : method;
}

function javaFrame(text: string, artifactLine: number): FrameReference | undefined {
  const match = JAVA_FRAME.exec(text);
  if (!match) return undefined;
  const [, className = "", method = "", location = ""] = match;
  const parts = className.split(".");
  const packageParts = parts.slice(0, -1);
  const where = /^([\w$-]+\.(?:java|scala|kt)):(\d+)$/.exec(location.trim());
  const base: FrameReference = {
    artifactLine,
    text: shorten(text),
    javaPackage: packageParts.join("."),
  };
  if (!where) return { ...base, external: true };
  const resolved = javaMethod(className, method);
  return {
    ...base,
    file: [...packageParts, where[1]].join("/"),
    line: Number(where[2]),
    ...(resolved ? { method: resolved } : {}),
  };
}

/** The function a Go traceback's function line names (`run.func8` is `run`). */
function goFunction(text: string): string | undefined {
  const call = text.trim().replace(/\([^()]*\)\s*$/, "");
  const pieces = call.split(".").filter((piece) => piece !== "");
  while (pieces.length > 0 && /^(?:func\d+|\d+|gowrap\d+)$/.test(pieces[pieces.length - 1]!))
    pieces.pop();
  const last = pieces[pieces.length - 1]?.replace(/\[.*\]$/, "");
  return last && /^[A-Za-z_]\w*$/.test(last) ? last : undefined;
}

function rustFunction(text: string): string | undefined {
  const path = text.replace(/::h[0-9a-f]{16}$/, "").replace(/<.*>/g, "");
  const pieces = path.split("::").filter((piece) => piece !== "" && !piece.startsWith("{{"));
  const last = pieces[pieces.length - 1];
  return last && /^[A-Za-z_]\w*$/.test(last) ? last : undefined;
}

function isExternalPath(path: string): boolean {
  return (
    /\/pkg\/mod\//.test(path) ||
    /@v\d/.test(path) ||
    path.startsWith("/rustc/") ||
    /\/\.cargo\/(?:registry|git)\//.test(path) ||
    // Go's standard library (`/usr/local/go/src/runtime/...`), not a GOPATH checkout
    // (`/home/ci/go/src/github.com/pingcap/tikv/...`, whose first folder holds a dot).
    /\/go\/src\/[^/.]+\//.test(path) ||
    /\/lib\/python\d[\d.]*\/(?!site-packages\/)/.test(path) ||
    // the C and C++ toolchain's headers and libraries
    /^\/usr\/(?:local\/)?(?:include|lib)\//.test(path)
  );
}

/** Frames of one artifact line that stand alone (not the two-line Go and Rust shapes). */
function singleLineFrames(text: string, artifactLine: number): FrameReference[] {
  const java = javaFrame(text, artifactLine);
  if (java) return [java];
  const python = PYTHON_FRAME.exec(text);
  if (python) {
    const [, file = "", line = "", method] = python;
    const named = method && /^[A-Za-z_]\w*$/.test(method) ? { method } : {};
    return [
      {
        artifactLine,
        text: shorten(text),
        file,
        line: Number(line),
        ...named,
        ...(isExternalPath(file) ? { external: true } : {}),
      },
    ];
  }
  const panic = RUST_PANIC.exec(text);
  if (panic)
    return [{ artifactLine, text: shorten(text), file: panic[1]!, line: Number(panic[2]) }];
  const gdb = GDB_FRAME.exec(text);
  if (gdb) {
    const method = gdb[1]!.split("::").pop();
    return [
      {
        artifactLine,
        text: shorten(text),
        file: gdb[2]!,
        line: Number(gdb[3]),
        ...(method && /^~?[A-Za-z_]\w*$/.test(method) ? { method: method.replace(/^~/, "") } : {}),
      },
    ];
  }
  const symbol = SYMBOL_ONLY.exec(text);
  if (symbol) {
    // A shared library's frame, or the C runtime's and compiler's own symbols (`_start`,
    // `__libc_start_main`, mangled names) are not the project's.
    const external = /\.so(?:\.[\d.]+)?$/.test(symbol[1]!) || symbol[2]!.startsWith("_");
    return [
      {
        artifactLine,
        text: shorten(text),
        method: symbol[2]!,
        ...(external ? { external: true } : {}),
      },
    ];
  }
  const references: FrameReference[] = [];
  for (const match of text.matchAll(BARE_REFERENCE))
    references.push({
      artifactLine,
      text: shorten(match[0]),
      file: match[1]!,
      line: Number(match[2]),
      ...(isExternalPath(match[1]!) ? { external: true } : {}),
    });
  return references;
}

/**
 * Every frame and `file:line` reference of an artifact's text. Strings inside JSON log
 * lines (a zap `stacktrace` field) are read as the lines they encode.
 */
export function findFrames(text: string): FrameReference[] {
  const frames: FrameReference[] = [];
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const artifactLine = index + 1;
    const expanded = expandJsonStrings(raw);
    for (const [inner, line] of expanded.entries()) {
      const previous = inner > 0 ? expanded[inner - 1] : lines[index - 1];
      const go = GO_FILE_LINE.exec(line);
      if (go) {
        const method = previous ? goFunction(previous) : undefined;
        frames.push({
          artifactLine,
          text: shorten(`${previous?.trim() ?? ""} ${line.trim()}`),
          file: go[1]!,
          line: Number(go[2]),
          ...(method ? { method } : {}),
          ...(isExternalPath(go[1]!) ? { external: true } : {}),
        });
        continue;
      }
      const rust = RUST_AT.exec(line);
      if (rust) {
        const named = previous ? RUST_FUNCTION.exec(previous) : null;
        const method = named ? rustFunction(named[1]!) : undefined;
        frames.push({
          artifactLine,
          text: shorten(line),
          file: rust[1]!,
          line: Number(rust[2]),
          ...(method ? { method } : {}),
          ...(isExternalPath(rust[1]!) ? { external: true } : {}),
        });
        continue;
      }
      frames.push(...singleLineFrames(line, artifactLine));
    }
  }
  return frames;
}

/** A JSON log line's string values that hold several lines, as those lines; else the line. */
function expandJsonStrings(line: string): string[] {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{") || !trimmed.includes("\\n")) return [line];
  try {
    const value: unknown = JSON.parse(trimmed);
    if (typeof value !== "object" || value === null) return [line];
    const rest: Record<string, unknown> = {};
    const inner: string[] = [];
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === "string" && field.includes("\n")) inner.push(...field.split("\n"));
      else rest[key] = field;
    }
    return [JSON.stringify(rest), ...inner];
  } catch {
    return [line];
  }
}

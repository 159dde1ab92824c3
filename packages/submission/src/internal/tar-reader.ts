import { DistDebugError } from "@distdebug/schema";

/** One regular file of a tar archive. */
export interface TarEntry {
  /** Relative POSIX path, without `..` segments. */
  path: string;
  data: Uint8Array;
}

/**
 * Which paths an archive may hold, and how large each file may be: checked on each header,
 * before its data is inflated.
 */
export interface ArchiveLayout {
  /** The largest size of the file at `path`, or undefined when no file may be there. */
  fileLimit(path: string): number | undefined;
  /** True when `path` may be a folder entry. */
  isFolder(path: string): boolean;
}

/** What {@link TarReader} checks. */
export interface TarReaderOptions {
  /** The archive's name in messages. */
  source: string;
  /** Most uncompressed bytes in all. */
  maxBytes: number;
  layout: ArchiveLayout;
}

export const BLOCK = 512;
/** A pax header is a few records of a path: more is not ours. */
const MAX_PAX_BYTES = 64 * 1024;
/** Most entries of one archive (a full catalog run holds a few thousand files). */
const MAX_ENTRIES = 100_000;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `path` as it can be shown in one line: JSON-quoted when it holds a control character. */
export function shownPath(path: string): string {
  return CONTROL.test(path) ? JSON.stringify(path) : path;
}

/** Checks that `path` is a safe relative archive path; returns it or a reason. */
export function checkPath(path: string): string | undefined {
  if (path === "" || path.startsWith("/")) return "an absolute or empty path";
  const parts = path.split("/");
  if (parts.includes("..")) return "a path with .. that climbs out of the archive";
  if (parts.some((part) => part === "" || part === "."))
    return "an alias path (an empty or . segment such as a//b or a/./b)";
  if (path.includes("\\") || path.includes("\0")) return "a path with a backslash or NUL";
  if (CONTROL.test(path)) return "a path with a control character";
  return undefined;
}

/** A file whose path is also a folder of another file (`a` and `a/b`): the reason, or undefined. */
export function fileForFolder(paths: ReadonlySet<string>): string | undefined {
  for (const path of paths) {
    for (let cut = path.indexOf("/"); cut !== -1; cut = path.indexOf("/", cut + 1)) {
      const folder = path.slice(0, cut);
      if (paths.has(folder))
        return `${path}: expects ${folder} to be a folder, but ${folder} is a file of the archive`;
    }
  }
  return undefined;
}

function entryKind(type: string): string {
  const kinds: Record<string, string> = {
    "1": "a hard link",
    "2": "a symbolic link",
    "3": "a character device",
    "4": "a block device",
    "6": "a FIFO",
    "7": "a contiguous file",
    g: "a global pax header",
    K: "a GNU long link name",
    L: "a GNU long name",
    S: "a GNU sparse file",
  };
  return `${kinds[type] ?? "a special entry"} (tar entry of type ${JSON.stringify(type)})`;
}

/** A parsed header: what GNU tar would make of it, as far as we accept it. */
interface Header {
  type: string;
  path: string;
  size: number;
  at: number;
}

/**
 * Reads a tar stream pushed in chunks, refusing everything a standard `tar -x` could extract
 * otherwise than it reads: only POSIX ustar headers of regular files and folders, pax headers of
 * a `path` record alone, no data after the end-of-archive block but zeros, every path in the
 * layout and every file under its size limit (checked on the header, before its data arrives).
 */
export class TarReader {
  readonly entries: TarEntry[] = [];
  private readonly options: TarReaderOptions;
  private readonly seen = new Set<string>();
  private chunks: Buffer[] = [];
  private buffered = 0;
  private total = 0;
  /** Where the next block starts in the tar stream. */
  private offset = 0;
  private header: Header | undefined;
  private paxPath: string | undefined;
  private ended = false;

  constructor(options: TarReaderOptions) {
    this.options = options;
  }

  /** Takes the next uncompressed bytes. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.total > this.options.maxBytes)
      this.invalid(`larger than the limit of ${this.options.maxBytes} bytes once uncompressed`);
    if (this.ended) {
      this.checkTrailing(chunk);
      return;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.ended && this.step()) {}
    if (this.ended) {
      const rest = Buffer.concat(this.chunks);
      this.chunks = [];
      this.buffered = 0;
      this.checkTrailing(rest);
    }
  }

  /** The archive ended: its files, or an error if it was cut short. */
  finish(): TarEntry[] {
    if (this.header || this.paxPath !== undefined || this.buffered > 0)
      this.invalid(`the archive is cut short at byte ${this.total}`);
    const conflict = fileForFolder(this.seen);
    if (conflict) this.invalid(conflict);
    return this.entries;
  }

  private invalid(detail: string): never {
    throw new DistDebugError({
      code: "INVALID_ARCHIVE",
      message: `${this.options.source}: ${detail}`,
      data: { source: this.options.source },
    });
  }

  private checkTrailing(bytes: Buffer): void {
    if (bytes.some((byte) => byte !== 0))
      this.invalid(
        "data after the end-of-archive block (only zero padding may follow; tar could read it as more files)",
      );
  }

  private take(length: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = all.length > length ? [all.subarray(length)] : [];
    this.buffered -= length;
    this.offset += length;
    return all.subarray(0, length);
  }

  /** Reads one header or one entry's data when enough bytes are buffered. */
  private step(): boolean {
    const header = this.header;
    if (!header) {
      if (this.buffered < BLOCK) return false;
      const at = this.offset;
      const block = this.take(BLOCK);
      if (block.every((byte) => byte === 0)) this.ended = true;
      else this.header = this.checkEntry(this.readHeader(block, at));
      return true;
    }
    const padded = Math.ceil(header.size / BLOCK) * BLOCK;
    if (this.buffered < padded) return false;
    const data = this.take(padded).subarray(0, header.size);
    this.header = undefined;
    this.takeEntry(header, data);
    return true;
  }

  private readHeader(block: Buffer, at: number): Header {
    const checksum = this.octal(block, 148, 8, at);
    let sum = 0;
    for (let index = 0; index < BLOCK; index++)
      sum += index >= 148 && index < 156 ? 0x20 : block[index]!;
    if (sum !== checksum) this.invalid(`a tar header at byte ${at} has a bad checksum`);
    // GNU headers keep times where ustar keeps a name prefix; v7 headers have no magic.
    const magic = block.toString("latin1", 257, 265);
    const gnu = magic === "ustar  \u0000";
    if (!gnu && magic !== "ustar\u000000")
      this.invalid(
        `the header at byte ${at} is neither a ustar nor a GNU tar header; make the archive with distdebug package`,
      );
    const type = String.fromCharCode(block[156]!);
    const size = this.octal(block, 124, 12, at);
    const name = this.text(block, 0, 100, at);
    const prefix = gnu ? "" : this.text(block, 345, 155, at);
    const path = prefix ? `${prefix}/${name}` : name;
    if (type !== "0" && type !== "5" && type !== "x")
      this.invalid(`${shownPath(path)}: ${entryKind(type)}; only regular files are allowed`);
    if (type === "x" && size > MAX_PAX_BYTES)
      this.invalid(`the pax header at byte ${at} is ${size} bytes; at most ${MAX_PAX_BYTES}`);
    return { type, path, size, at };
  }

  /** A header field of octal digits, ended by NUL or space; anything else is refused. */
  private octal(block: Buffer, offset: number, length: number, at: number): number {
    const field = block.toString("latin1", offset, offset + length);
    const match = /^ *([0-7]+)[ \0]*$/.exec(field);
    if (!match)
      this.invalid(
        `a tar header at byte ${at} has a number field that is not plain octal (${JSON.stringify(field)})`,
      );
    return Number.parseInt(match[1]!, 8);
  }

  /** A NUL-ended UTF-8 header field. */
  private text(block: Buffer, offset: number, length: number, at: number): string {
    const field = block.subarray(offset, offset + length);
    const end = field.indexOf(0);
    try {
      return utf8.decode(end === -1 ? field : field.subarray(0, end));
    } catch {
      return this.invalid(`a tar header at byte ${at} has a name that is not UTF-8`);
    }
  }

  /**
   * Settles an entry's path (a pax path applies to it) and checks it against the layout and
   * its size limit, before any of its data is read.
   */
  private checkEntry(header: Header): Header {
    if (header.type === "x") {
      if (this.paxPath !== undefined) this.invalid(`two pax headers in a row at byte ${header.at}`);
      return header;
    }
    let path = this.paxPath ?? header.path;
    this.paxPath = undefined;
    if (path.startsWith("./")) path = path.slice(2);
    if (header.type === "5") {
      this.checkFolder(path, header);
      return { ...header, path };
    }
    const reason = checkPath(path);
    if (reason) this.invalid(`${shownPath(path)}: ${reason}`);
    const limit = this.options.layout.fileLimit(path);
    if (limit === undefined) this.invalid(`${path}: not a file of the results layout`);
    if (header.size > limit)
      this.invalid(`${path}: ${header.size} bytes, over the ${limit}-byte limit of this file`);
    if (this.seen.has(path)) this.invalid(`${path}: twice in the archive`);
    if (this.seen.size >= MAX_ENTRIES) this.invalid(`more than ${MAX_ENTRIES} files`);
    this.seen.add(path);
    return { ...header, path };
  }

  private takeEntry(header: Header, data: Buffer): void {
    if (header.type === "x") this.paxPath = this.readPax(data, header.at);
    else if (header.type === "0")
      this.entries.push({ path: header.path, data: Uint8Array.from(data) });
  }

  private checkFolder(path: string, header: Header): void {
    const folder = path.endsWith("/") ? path.slice(0, -1) : path;
    if (folder === "" || folder === ".") return;
    const reason = checkPath(folder);
    if (reason) this.invalid(`${shownPath(path)}: ${reason}`);
    if (header.size !== 0 || !this.options.layout.isFolder(folder))
      this.invalid(`${shownPath(path)}: not a folder of the results layout`);
  }

  /** The `path` of a pax header's records; any other record is refused. */
  private readPax(data: Buffer, at: number): string {
    let path: string | undefined;
    let position = 0;
    while (position < data.length) {
      const space = data.indexOf(0x20, position);
      const length = space === -1 ? Number.NaN : Number(data.toString("latin1", position, space));
      const end = position + length;
      if (!Number.isInteger(length) || length <= 0 || end > data.length || data[end - 1] !== 0x0a)
        this.invalid(`the pax header at byte ${at} has a malformed record`);
      let record: string;
      try {
        record = utf8.decode(data.subarray(space + 1, end - 1));
      } catch {
        return this.invalid(`the pax header at byte ${at} is not UTF-8`);
      }
      const equals = record.indexOf("=");
      const key = equals === -1 ? record : record.slice(0, equals);
      if (key !== "path" || path !== undefined)
        this.invalid(
          `the pax header at byte ${at} has a ${JSON.stringify(key)} record; only one path record is accepted (tar would apply it, this reader does not)`,
        );
      path = record.slice(equals + 1);
      position = end;
    }
    if (path === undefined) this.invalid(`the pax header at byte ${at} has no path record`);
    return path;
  }
}

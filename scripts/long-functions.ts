/**
 * Lists the longest functions of the non-test TypeScript under packages/ (declarations,
 * methods, arrow functions and function expressions), longest first, with their line counts
 * (first line of the signature to the closing brace). A function nested in another counts
 * in both. Prints; a script, not a library.
 *
 * Usage: `node --import tsx scripts/long-functions.ts [--top N] [--over LINES]`
 * (`--over` lists every function longer than LINES and exits 1 when there is one).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

const root = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!["node_modules", "dist", "fixtures", "testing"].includes(entry.name))
        found.push(...sourceFiles(path));
    } else if (/\.(ts|mts)$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name))
      found.push(path);
  }
  return found;
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined)
    return node.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "(anonymous)";
}

function functionLengths(path: string): FunctionLength[] {
  const text = readFileSync(path, "utf8");
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({
        file: relative(root, path),
        name: nameOf(node),
        line: start + 1,
        lines: end - start + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function option(name: string): number | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : Number(process.argv[at + 1]);
}

const all = sourceFiles(join(root, "packages"))
  .flatMap(functionLengths)
  .sort((a, b) => b.lines - a.lines);
const over = option("--over");
const shown =
  over === undefined ? all.slice(0, option("--top") ?? 10) : all.filter((f) => f.lines > over);
for (const f of shown)
  console.log(`${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
if (over !== undefined && shown.length > 0) process.exitCode = 1;

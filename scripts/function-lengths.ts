// The length of every function of the project's sources, counted by TypeScript's own parser: its
// lines, and its own body's (the lines of named functions nested in it left out, since each of those
// is counted as a function of its own; callbacks written in place count as its own). test/unit/function-lengths.test.ts holds the sources to at
// most MAX_OWN_LINES of own body; by hand, the longest: `npx tsx scripts/function-lengths.ts [N]`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** What a newcomer reads at once: a function longer than this is split by concern. */
export const MAX_OWN_LINES = 100;

/** The sources: the broker's layers, the gateway, the clients, the kit, the console, scripts and benchmarks (tests and generated code aside). */
export const SOURCE_DIRS = ['domain', 'core', 'read-model', 'delivery', 'activities', 'api', 'dev', 'workflows', 'gateway', 'sdk/src', 'examples', 'conformance/src', 'console', 'scripts', 'bench'];

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
  ownLines: number;
}

function sourceFiles(root: string): string[] {
  const out = readdirSync(root).filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')).map((f) => join(root, f));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (entry === 'node_modules' || entry === 'generated' || entry === 'bundles' || entry === 'vendor') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts') && !entry.endsWith('.min.js')) out.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(root, dir));
  return out;
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node);

/** A function a reader meets by its name (declared, a method, or given to a variable or property), not a callback written in place. */
const isNamed = (node: ts.FunctionLikeDeclaration) =>
  !(ts.isArrowFunction(node) || ts.isFunctionExpression(node)) || ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) || ts.isPropertyDeclaration(node.parent);

/** A function's name as a reader finds it: its own, the variable or property it is assigned to, or `(anonymous)`. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(source).slice(0, 40)}(…)`;
  return '(anonymous)';
}

export function functionLengths(root: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const path of sourceFiles(root)) {
    const text = readFileSync(path, 'utf8');
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
    const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
    const visit = (node: ts.Node) => {
      if (isFunction(node) && node.body) {
        const first = lineOf(node.getStart(source));
        const last = lineOf(node.end);
        // The lines of the named functions inside it (declared, or given to a variable or property):
        // they are counted on their own. A callback written in place (`rows.map((r) => ...)`) is
        // read as part of the function around it, and counts there.
        const nested = new Set<number>();
        const inner = (child: ts.Node) => {
          if (isFunction(child) && isNamed(child)) {
            for (let l = lineOf(child.getStart(source)); l <= lineOf(child.end); l++) nested.add(l);
            return;
          }
          ts.forEachChild(child, inner);
        };
        ts.forEachChild(node.body, inner);
        const lines = last - first + 1;
        found.push({ file: relative(root, path), name: nameOf(node, source), line: first + 1, lines, ownLines: lines - [...nested].filter((l) => l > first && l < last).length });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

if (process.argv[1]?.endsWith('function-lengths.ts')) {
  const top = Number(process.argv[2] ?? 20);
  const all = functionLengths(join(__dirname, '..')).sort((a, b) => b.ownLines - a.ownLines);
  for (const f of all.slice(0, top)) console.log(`${String(f.ownLines).padStart(4)} own / ${String(f.lines).padStart(4)} lines  ${f.file}:${f.line} ${f.name}`);
  console.log(`${all.length} functions; ${all.filter((f) => f.ownLines > MAX_OWN_LINES).length} over ${MAX_OWN_LINES} lines of own body; ${all.filter((f) => f.lines > MAX_OWN_LINES).length} span over ${MAX_OWN_LINES} lines`);
}

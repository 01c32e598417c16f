// domain/ keeps no state between calls. The worker shares the domain's modules across all the
// workflows of a thread (workflows/bundle.ts, PRELOADED_MODULES: evaluated once, not per workflow),
// so a module-level variable there would carry one workflow's state into another's and break
// replay. Checked on the source with the TypeScript parser: no module-level `let` or `var`, and no
// module-level Map, Set or array that the file changes after it is built.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const DOMAIN = resolve(__dirname, '..', '..', 'domain');
const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);

/** What in one source file's module scope could hold state between calls. */
function moduleState(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const containers = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const constant = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const d of list.declarations) {
      const name = d.name.getText(source);
      if (!constant) found.push(`${fileName}: module-level ${list.flags & ts.NodeFlags.Let ? 'let' : 'var'} ${name}`);
      const init = d.initializer;
      if (init && ((ts.isNewExpression(init) && /^(Map|Set|WeakMap|WeakSet|Array)$/.test(init.expression.getText(source))) || ts.isArrayLiteralExpression(init))) containers.add(name);
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const target = node.expression.expression.getText(source);
      if (containers.has(target) && MUTATORS.has(node.expression.name.text)) found.push(`${fileName}: ${target}.${node.expression.name.text}(…) changes a module-level ${target}`);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isElementAccessExpression(node.left) && containers.has(node.left.expression.getText(source))) {
      found.push(`${fileName}: ${node.left.getText(source)} = … changes a module-level ${node.left.expression.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function domainFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? domainFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('domain/ holds no module-level state (its modules are shared by every workflow of a worker thread)', () => {
  const files = domainFiles(DOMAIN);
  expect(files.length).toBeGreaterThan(20);
  expect(files.flatMap((f) => moduleState(f.slice(DOMAIN.length + 1), readFileSync(f, 'utf8')))).toEqual([]);
});

test('the check finds a counter, a cache that grows and an array that is pushed to, and leaves constants and locals alone', () => {
  const text = [
    'let counter = 0;',
    'const cache = new Map<string, number>();',
    'const seen: string[] = [];',
    'const FIXED = new Map([["a", 1]]);',
    'export const LIST = ["x"];',
    'export function f(k: string) { counter++; cache.set(k, 1); seen.push(k); const local: string[] = []; local.push(k); return FIXED.get(k) ?? LIST[0]; }',
  ].join('\n');
  expect(moduleState('bad.ts', text)).toEqual([
    'bad.ts: module-level let counter',
    'bad.ts: cache.set(…) changes a module-level cache',
    'bad.ts: seen.push(…) changes a module-level seen',
  ]);
});

#!/usr/bin/env node
// Lists the functions over 80 lines and the files over 400 lines in src/, actors/ and simulator/
// (tests left out), for issue 36's rule that each carries its reason at the top of its file.
// Run from the repository root: `node bin/long-code.mjs`.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';

const MAX_FUNCTION = 80;
const MAX_FILE = 400;
const files = execFileSync('git', ['ls-files', 'src', 'actors', 'simulator'], { encoding: 'utf8' })
  .split('\n').filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

const isFunction = (n) => ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n)
  || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n);
const nameOf = (n) => n.name?.getText()
  ?? (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent) ? n.parent.name.getText() : '(anonymous)');

const rows = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length;
  if (lines > MAX_FILE) rows.push([lines, `file ${file}`]);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (isFunction(n)) {
      const first = source.getLineAndCharacterOfPosition(n.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (last - first + 1 > MAX_FUNCTION) rows.push([last - first + 1, `function ${file}:${first + 1} ${nameOf(n)}`]);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
}
for (const [count, what] of rows.sort((a, b) => b[0] - a[0])) console.log(`${String(count).padStart(4)}  ${what}`);

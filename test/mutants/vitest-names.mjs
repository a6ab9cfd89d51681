// The full names of the tests a vitest file declares, read by the TypeScript parser without running the file: each
// name is its describe blocks' names and its own, joined by " > ", which is the text `vitest -t` matches.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const DECLARERS = new Set(['describe', 'suite', 'it', 'test']);
/** Modifiers that return a declarer rather than declare: `it.skipIf(x)('name', fn)`, `describe.each(rows)(…)`. */
const FACTORIES = new Set(['skipIf', 'runIf', 'each', 'for']);
/** Stands for a part of a name the parser cannot know (a template's substitution, a non-literal `.each` row). */
export const UNKNOWN = '\u0000';

/** `{ names, dynamic }`: every test's full name (several for a literal `.each` table), and whether some part of a
 * name in the file is only known when it runs. */
export function vitestNames(path) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = [];
  let dynamic = false;
  const visit = (node, prefixes) => {
    const declared = ts.isCallExpression(node) ? declaration(node) : undefined;
    if (!declared) {
      ts.forEachChild(node, (child) => visit(child, prefixes));
      return;
    }
    const own = declared.names ?? [UNKNOWN];
    if (!declared.names || own.some((name) => name.includes(UNKNOWN))) dynamic = true;
    const full = prefixes.flatMap((prefix) => own.map((name) => (prefix ? `${prefix} > ${name}` : name)));
    if (declared.kind === 'it' || declared.kind === 'test') names.push(...full);
    for (const argument of node.arguments.slice(1)) visit(argument, full);
  };
  visit(source, ['']);
  return { names, dynamic };
}

/** The declarer a call is (`it`, `describe.skipIf(c)`, `test.each(rows)`), with its names, or undefined. */
function declaration(call) {
  let rows;
  let callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && FACTORIES.has(callee.name.text)) return undefined;
  for (;;) {
    if (ts.isCallExpression(callee)) {
      const factory = ts.isPropertyAccessExpression(callee.expression) ? callee.expression.name.text : undefined;
      if (factory === 'each' || factory === 'for') rows = eachRows(callee.arguments[0]);
      callee = callee.expression;
    } else if (ts.isPropertyAccessExpression(callee)) callee = callee.expression;
    else if (ts.isTaggedTemplateExpression(callee)) {
      rows = null;
      callee = callee.tag;
    } else break;
  }
  if (!ts.isIdentifier(callee) || !DECLARERS.has(callee.text)) return undefined;
  const template = literalText(call.arguments[0]);
  if (template === undefined) return { kind: callee.text };
  if (rows === undefined) return { kind: callee.text, names: [template] };
  return { kind: callee.text, names: rows === null ? [formatted(template, [])] : rows.map((row) => formatted(template, row)) };
}

/** A name argument's text; a template's substitutions become UNKNOWN. */
function literalText(node) {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => UNKNOWN + span.literal.text).join('');
  return undefined;
}

/** An `.each` table of literals as rows of values; null when the table is not literal. */
function eachRows(node) {
  let table = node;
  while (table && (ts.isAsExpression(table) || ts.isParenthesizedExpression(table))) table = table.expression;
  if (!table || !ts.isArrayLiteralExpression(table)) return null;
  const rows = [];
  for (const element of table.elements) {
    const row = ts.isArrayLiteralExpression(element) ? element.elements.map(literalValue) : [literalValue(element)];
    if (row.some((value) => value === undefined)) return null;
    rows.push(row);
  }
  return rows;
}

function literalValue(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  return undefined;
}

/** vitest's printf-style name: `%s`, `%d`, `%i` and the like take the row's values in order, `%%` is a percent
 * sign, `$name` and `%#` (an object row's field, the row's index) are unknown here. */
function formatted(template, row) {
  let next = 0;
  return template
    .replace(/%([sdifjo#%])/g, (_, kind) => {
      if (kind === '%') return '%';
      if (kind === '#' || next >= row.length) return UNKNOWN;
      return String(row[next++]);
    })
    .replace(/\$[A-Za-z_][\w.]*/g, UNKNOWN);
}

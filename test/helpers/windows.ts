// Finds, with the TypeScript parser, the shapes by which a test's result rests on a short wall-clock window: a fixed
// wait under 2 s that is not a poll, output or a trap that must come before a deadline under 2 s, and a TERM handler
// that must finish within a grace under 2 s. A line (or one of the two above it) saying `window-ok:` and why is let be.
import ts from 'typescript';

/** The shortest window a test may rest on. */
export const FLOOR_MS = 2_000;

export interface Window {
  line: number;
  rule: 'fixed wait' | 'output before a deadline' | 'handler within a grace';
  text: string;
}

/** Commands that wait (so what a command prints after them need not come before a deadline). */
const BLOCKS = /\b(sleep|wait|until|while|read|tail|timeout)\b/;
/** Commands that print, or set a handler, before they block. */
const ACTS = /\b(echo|printf|trap|seq|yes|head)\b/;
/** A TERM handler that does something (an empty one, `trap '' TERM`, only ignores the signal). */
const HANDLER = /\btrap\s+(['"])(?!\1).+?\1\s+(SIG)?TERM\b/;

export function shortWindows(path: string, text: string): Window[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const constants = constantsOf(source);
  const value = (node: ts.Node | undefined) => (node ? evaluate(node, constants) : undefined);
  const short = (node: ts.Node | undefined) => {
    const ms = value(node);
    return ms !== undefined && ms < FLOOR_MS;
  };
  const handlers = HANDLER.test(text);
  const found: Window[] = [];
  const flag = (node: ts.Node, rule: Window['rule']) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line;
    const lines = text.split('\n');
    if (lines.slice(Math.max(0, line - 2), line + 1).some((l) => l.includes('window-ok:'))) return;
    found.push({ line: line + 1, rule, text: lines[line]!.trim() });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && short(waitDelay(node)) && !isPoll(node)) flag(node, 'fixed wait');
    if (ts.isObjectLiteralExpression(node)) {
      const timeout = property(node, 'timeoutMs') ?? property(node, 'timeout_ms');
      if (short(timeout)) {
        const command = commandOf(node, constants);
        if (command !== undefined && ACTS.test(command.split(BLOCKS)[0]!)) flag(timeout!, 'output before a deadline');
      }
      const grace = property(node, 'graceMs');
      if (handlers && short(grace)) flag(grace!, 'handler within a grace');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The delay of `setTimeout(fn, ms)`, timers/promises' `setTimeout(ms)`, `sleep(ms)` or `delay(ms)`. */
function waitDelay(call: ts.CallExpression): ts.Expression | undefined {
  if (!ts.isIdentifier(call.expression)) return undefined;
  const name = call.expression.text;
  if (name === 'setTimeout') return call.arguments.length >= 2 ? call.arguments[1] : call.arguments[0];
  if (name === 'sleep' || name === 'delay') return call.arguments[0];
  return undefined;
}

/** A wait inside a loop (or inside a promise made in one), or one that schedules the function it is in: a poll. */
function isPoll(call: ts.CallExpression): boolean {
  const callback = call.arguments[0];
  for (let node: ts.Node = call.parent; !ts.isSourceFile(node); node = node.parent) {
    if (ts.isIterationStatement(node, false)) return true;
    if (!ts.isFunctionLike(node)) continue;
    if (ts.isNewExpression(node.parent) && ts.isIdentifier(node.parent.expression) && node.parent.expression.text === 'Promise') continue;
    return callback !== undefined && ts.isIdentifier(callback) && callback.text === functionName(node);
  }
  return false;
}

function functionName(fn: ts.SignatureDeclaration): string | undefined {
  if (fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
  const holder = fn.parent;
  if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name)) return holder.name.text;
  return undefined;
}

/** The value of a property (`name: value`, or `name` alone for a variable of that name). */
function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of object.properties) {
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) return p.name;
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name) return p.initializer;
  }
  return undefined;
}

/** The command a deadline applies to: the object's `command`, or a string argument before the object in its call. */
function commandOf(object: ts.ObjectLiteralExpression, constants: Constants): string | undefined {
  const own = property(object, 'command');
  if (own) return stringText(own, constants);
  const call = object.parent;
  if (!ts.isCallExpression(call)) return undefined;
  const before = call.arguments.slice(0, call.arguments.indexOf(object));
  return before.map((argument) => stringText(argument, constants)).find((text) => text !== undefined);
}

/** A string or template's literal text (substitutions left out), through a constant that holds one. */
function stringText(node: ts.Node, constants: Constants): string | undefined {
  if (ts.isIdentifier(node)) {
    const held = constants.get(node.text);
    return held && !ts.isIdentifier(held) ? stringText(held, constants) : undefined;
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => ` ${span.literal.text}`).join('');
  return undefined;
}

type Constants = Map<string, ts.Expression>;

/** The initializer of every `const NAME = …` of the file (at any depth), by name. */
function constantsOf(source: ts.SourceFile): Constants {
  const constants: Constants = new Map();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) {
      constants.set(node.name.text, node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return constants;
}

/** The number an expression of literals, constants and arithmetic comes to, or undefined. */
function evaluate(node: ts.Node, constants: Constants): number | undefined {
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isIdentifier(node)) {
    const held = constants.get(node.text);
    return held && !ts.isIdentifier(held) ? evaluate(held, constants) : undefined;
  }
  if (ts.isParenthesizedExpression(node)) return evaluate(node.expression, constants);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const inner = evaluate(node.operand, constants);
    return inner === undefined ? undefined : -inner;
  }
  if (ts.isBinaryExpression(node)) {
    const [a, b] = [evaluate(node.left, constants), evaluate(node.right, constants)];
    if (a === undefined || b === undefined) return undefined;
    switch (node.operatorToken.kind) {
      case ts.SyntaxKind.PlusToken:
        return a + b;
      case ts.SyntaxKind.MinusToken:
        return a - b;
      case ts.SyntaxKind.AsteriskToken:
        return a * b;
      case ts.SyntaxKind.SlashToken:
        return a / b;
    }
  }
  return undefined;
}

// Reading JSON with comments and trailing commas, strictly: the first syntax error or duplicate key
// throws a ConfigError at file:line:column with a hint, never a partial value or a silent fallback.

// The parser module alone, not the package's main entry: that one also loads the formatter, whose
// module builds a thousand cached indentation strings when it loads, which every command's start-up
// would pay, while only `mcpx config`, which edits files, needs it. Types: jsonc-parser-parser.d.ts.
import type { JSONPath, Node, ParseError, ParseOptions } from "jsonc-parser";
import { findNodeAtLocation, getNodeValue, parse, parseTree, visit } from "jsonc-parser/lib/esm/impl/parser.js";
import { ConfigError } from "./errors.ts";

const OPTIONS: ParseOptions = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false };

export interface Position {
  /** 1-based */
  line: number;
  /** 1-based, in UTF-16 code units */
  column: number;
}

/**
 * The deepest nesting of objects and arrays a file may have. Configs nest a few levels (a server's
 * env, a hook's when: 4–6); the parser and every walk of the value recurse once per level, and a
 * file nested 100,000 deep overflowed the stack as a RangeError naming no file. Any value far above
 * what configs need and far below a stack's reach will do.
 */
const MAX_DEPTH = 256;

/** Parses JSONC text; any syntax error, duplicate key or nesting past MAX_DEPTH throws a ConfigError naming `file`. */
export function parseJsonc(text: string, file: string): unknown {
  text = unBom(text);
  const deep = tooDeepAt(text);
  if (deep >= 0)
    throw new ConfigError({
      file,
      ...positionAt(text, deep),
      detail: `nested more than ${MAX_DEPTH} levels deep (objects and arrays): mcpx reads no deeper; a config needs a few levels`,
    });
  // one pass for a file without errors (every command reads several at start-up): the tree, whose
  // value is the file's; a second pass only to word the first error
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, OPTIONS);
  if (errors.length > 0) {
    const syntax = firstSyntaxError(text);
    if (syntax) throw new ConfigError({ file, ...positionAt(text, syntax.offset), detail: syntax.detail });
  }
  if (root) rejectDuplicateKeys(text, file, root);
  return root && errors.length === 0 ? getNodeValue(root) : parse(text, [], OPTIONS);
}

/**
 * Where the key at `path` is written (the start of its name; for an array index, of the item).
 * When the full path is absent, the deepest ancestor that exists, so an error about a missing key
 * still points at the entry it belongs in. Undefined when the text does not parse to a tree.
 */
export function locateKey(text: string, path: JSONPath): Position | undefined {
  text = unBom(text);
  const root = parseTree(text, [], OPTIONS);
  if (!root) return undefined;
  for (let depth = path.length; depth >= 0; depth--) {
    const node = findNodeAtLocation(root, path.slice(0, depth));
    if (!node) continue;
    const at = node.parent?.type === "property" ? node.parent : node;
    return positionAt(text, at.offset);
  }
  return undefined;
}

/** `mcpServers.foo.args[2]`; a key that is not a plain name is quoted: `mcpServers["a.b"]`. */
export function formatKeyPath(path: JSONPath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** the offset of the bracket that opens level MAX_DEPTH + 1, or -1; strings and comments are skipped */
function tooDeepAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
      i = text.indexOf("\n", i);
      if (i < 0) return -1;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      i = text.indexOf("*/", i + 2);
      if (i < 0) return -1;
      i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}

/** 1-based line and column of a character offset. */
function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

// A BOM (Windows editors) is not JSON. Dropping it (rather than blanking it) keeps line 1's
// columns the same as an editor shows them.
function unBom(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

// Only the first error matters: jsonc-parser recovers and reports cascades after it.
function firstSyntaxError(text: string): { offset: number; detail: string } | undefined {
  let found: { offset: number; detail: string } | undefined;
  const open: Array<"object" | "array"> = [];
  visit(
    text,
    {
      onObjectBegin: () => void open.push("object"),
      onObjectEnd: () => void open.pop(),
      onArrayBegin: () => void open.push("array"),
      onArrayEnd: () => void open.pop(),
      onError: (code, offset, length) => {
        if (found) return;
        const token = text.slice(offset, offset + length);
        found = { offset, detail: describe(ERROR_NAMES[code - 1] ?? `code ${code}`, token, open.at(-1), text) };
      },
    },
    OPTIONS,
  );
  return found;
}

/** jsonc-parser's ParseErrorCode names, in the order of their values (1…16): what its printParseErrorCode gives */
export const ERROR_NAMES: readonly string[] = [
  "InvalidSymbol",
  "InvalidNumberFormat",
  "PropertyNameExpected",
  "ValueExpected",
  "ColonExpected",
  "CommaExpected",
  "CloseBraceExpected",
  "CloseBracketExpected",
  "EndOfFileExpected",
  "InvalidCommentToken",
  "UnexpectedEndOfComment",
  "UnexpectedEndOfString",
  "UnexpectedEndOfNumber",
  "InvalidUnicode",
  "InvalidEscapeCharacter",
  "InvalidCharacter",
];

function describe(code: string, token: string, inside: "object" | "array" | undefined, text: string): string {
  const near = token.trim() === "" ? "" : ` (found ${JSON.stringify(token)})`;
  switch (code) {
    case "InvalidSymbol":
      return `unexpected ${JSON.stringify(token)}: keys and strings need double quotes; true, false and null are lowercase`;
    case "InvalidNumberFormat":
      return `invalid number${near}: write a plain decimal number (no leading zeros, hex, NaN or Infinity)`;
    case "PropertyNameExpected":
      return `expected a key in double quotes${near}`;
    case "ValueExpected":
      if (text.trim() === "") return `the file is empty: write {} or delete the file`;
      return `expected a value${near}: a string, number, true, false, null, an object or an array`;
    case "ColonExpected":
      return `expected a colon after the key${near}`;
    case "CommaExpected":
      return inside === "array" ? `expected a comma or closing bracket${near}` : `expected a comma or closing brace${near}`;
    case "CloseBraceExpected":
      return `expected a closing brace: an object is not closed`;
    case "CloseBracketExpected":
      return `expected a closing bracket: an array is not closed`;
    case "EndOfFileExpected":
      return `unexpected text after the end of the value${near}: a config file holds exactly one object`;
    case "InvalidCommentToken":
      return `invalid comment: use // to the end of the line or /* … */`;
    case "UnexpectedEndOfComment":
      return `a /* comment is not closed: end it with */`;
    case "UnexpectedEndOfString":
      return `a string is not closed: end it with a double quote on the same line (write \\n for a line break)`;
    case "UnexpectedEndOfNumber":
      return `a number ends too early${near}: write digits after the sign, the point or the exponent`;
    case "InvalidUnicode":
      return `invalid unicode escape${near}: write \\u followed by four hex digits`;
    case "InvalidEscapeCharacter":
      return `invalid escape${near}: use \\\\ for a backslash, or one of \\" \\/ \\b \\f \\n \\r \\t \\u`;
    case "InvalidCharacter":
      return `a control character inside a string: escape it (\\t, \\n) or remove it`;
    default:
      return `syntax error (${code})${near}`;
  }
}

// JSON parsers keep the last of two equal keys; in a config file that silently drops the first
// (two "foo" servers, one of them lost), so it is an error here.
function rejectDuplicateKeys(text: string, file: string, node: Node, path: JSONPath = []): void {
  if (node.type === "object") {
    const seen = new Map<string, number>();
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode) continue;
      const key = String(keyNode.value);
      const first = seen.get(key);
      if (first !== undefined) {
        const firstLine = positionAt(text, first).line;
        throw new ConfigError({
          file,
          ...positionAt(text, prop.offset),
          key: formatKeyPath([...path, key]),
          detail: `duplicate key (first written on line ${firstLine}): JSON keeps only the last one, so remove or merge one of them`,
        });
      }
      seen.set(key, prop.offset);
      if (valueNode) rejectDuplicateKeys(text, file, valueNode, [...path, key]);
    }
  } else if (node.type === "array") {
    for (const [i, child] of (node.children ?? []).entries()) rejectDuplicateKeys(text, file, child, [...path, i]);
  }
}

import { Lexer } from 'yaml';

/** Far more than any resource needs (a Dataplane's deepest field is about 5 levels down). */
export const MAX_NESTING = 64;

/** Lexer tokens that mark a position without taking any of the source: document start, flow end, scalar. */
const ZERO_WIDTH = new Set(['\u0002', '\u0018', '\u001f']);

export interface TooDeep {
  line: number;
  column: number;
}

/**
 * Where the text first nests deeper than `limit` collections, or undefined. The YAML parser
 * recurses once per level: a few thousand levels (`[[[[…`, `- - - - …`) exhaust the stack, and
 * repeated overflows have been seen to abort the whole process (V8 "RegExpCompiler Allocation
 * failed"), so a body or a proxy's node metadata could take meshdesk down. yaml's lexer is
 * iterative and knows quoted scalars, so counting from its tokens is safe and exact for flow
 * collections (`[`, `{`); block collections are counted by the columns they open at (indentation,
 * and each `- ` or `? ` of a compact `- - - x`), which never undercounts them.
 */
export function findTooDeepNesting(text: string, limit = MAX_NESTING): TooDeep | undefined {
  let line = 1;
  let column = 0;
  let flow = 0;
  /** Columns of the block collections open at this point. */
  const block: number[] = [];
  let lineStart = true;
  for (const token of new Lexer().lex(text)) {
    if (ZERO_WIDTH.has(token)) continue;
    if (token === '\n' || token === '\r\n') {
      line += 1;
      column = 0;
      lineStart = true;
      continue;
    }
    if (lineStart && flow === 0 && !/^[ \t]*$/.test(token) && !token.startsWith('#')) {
      // The first content of a line closes every block collection at or right of its column.
      while (block.length > 0 && block.at(-1)! > column) block.pop();
      if (block.at(-1) !== column) block.push(column);
      lineStart = false;
    }
    if (token === '[' || token === '{') flow += 1;
    else if (token === ']' || token === '}') flow = Math.max(0, flow - 1);
    else if (flow === 0 && (token === '-' || token === '?')) block.push(column + 1);
    if (block.length + flow > limit) return { line, column: column + 1 };
    const newline = token.lastIndexOf('\n');
    if (newline === -1) column += token.length;
    else {
      line += token.split('\n').length - 1;
      column = token.length - newline - 1;
    }
  }
  return undefined;
}

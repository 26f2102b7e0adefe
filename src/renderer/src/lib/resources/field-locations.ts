// Where a violation's field path (`networking.inbound[0].tags["kuma.io/service"]`) is in the YAML
// the user wrote, so the API's validation errors can be shown at their lines.
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import type { Violation } from '../../../../shared/resources.js';

export type PathSegment = string | number;

/** A range of the text to mark, and its 1-based line. */
export interface TextLocation {
  from: number;
  to: number;
  line: number;
}

export interface LocatedViolation extends Violation {
  location: TextLocation;
  /** false when the path's own field is absent (e.g. "is required"): the location is its nearest parent. */
  exact: boolean;
}

const SEGMENT = /^(?:\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;
/** The parser's own errors name their place: `line 3, column 5: …`. */
const POSITION_IN_MESSAGE = /^line (\d+), column (\d+): /;

/** Kuma's field path → segments: `a.b[0]["x.y"]` → `['a', 'b', 0, 'x.y']`. Unparsable rest is dropped. */
export function parseFieldPath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let rest = path;
  while (rest.length > 0) {
    const match = SEGMENT.exec(rest);
    if (!match) break;
    const [whole, name, index, quoted] = match;
    segments.push(name ?? (index !== undefined ? Number(index) : (JSON.parse(quoted!) as string)));
    rest = rest.slice(whole.length);
  }
  return segments;
}

/** Each violation (or finding) with the place of its field in `text`; the document start when nothing closer is found. */
export function locateViolations<V extends Violation>(text: string, violations: readonly V[]): (V & Omit<LocatedViolation, keyof Violation>)[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, keepSourceTokens: false });
  const at = (from: number, to: number): TextLocation => ({ from, to, line: lineCounter.linePos(from).line });
  const firstLine = at(0, lineEnd(text, 0));

  return violations.map((violation) => {
    const positioned = POSITION_IN_MESSAGE.exec(violation.message);
    if (violation.field === '' && positioned) {
      const from = offsetOf(text, Number(positioned[1]), Number(positioned[2]));
      // The place is the location now (the list says "line 8"): the message keeps only what is wrong.
      const message = `column ${positioned[2]}: ${violation.message.slice(positioned[0].length)}`;
      return { ...violation, message, location: at(from, Math.max(from + 1, lineEnd(text, from))), exact: true };
    }
    const found = findNode(document.contents as Node | null, parseFieldPath(violation.field));
    if (!found) return { ...violation, location: firstLine, exact: false };
    const [from, to] = found.range;
    return { ...violation, location: at(from, Math.min(Math.max(to, from + 1), lineEnd(text, from))), exact: found.exact };
  });
}

interface FoundNode {
  range: [number, number];
  exact: boolean;
}

/** Walks the path as far as the document goes; marks the key (or item) of the deepest field found. */
function findNode(root: Node | null, segments: readonly PathSegment[]): FoundNode | undefined {
  let node: unknown = root;
  let found: FoundNode | undefined;
  for (const segment of segments) {
    if (typeof segment === 'number' && isSeq(node)) {
      const item = node.items[segment];
      if (!isNodeWithRange(item)) return found && { ...found, exact: false };
      found = { range: [item.range[0], item.range[1]], exact: true };
      node = item;
    } else if (typeof segment === 'string' && isMap(node)) {
      const pair = node.items.find((each) => isPair(each) && isScalar(each.key) && String(each.key.value) === segment);
      if (!pair) return found && { ...found, exact: false };
      found = { range: pairRange(pair), exact: true };
      node = pair.value;
    } else {
      return found && { ...found, exact: false };
    }
  }
  return found;
}

/** The key, and a scalar value with it: `port: 70000` as a whole, `tags:` alone. */
function pairRange(pair: Pair): [number, number] {
  const key = pair.key as Node;
  const keyRange = key.range!;
  const value = pair.value;
  if (isScalar(value) && value.range) return [keyRange[0], value.range[1]];
  return [keyRange[0], keyRange[1]];
}

function isNodeWithRange(value: unknown): value is Node & { range: [number, number, number] } {
  return typeof value === 'object' && value !== null && 'range' in value && Array.isArray((value as Node).range);
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
}

/** 1-based line and column → offset. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return Math.min(text.length, offset + column - 1);
}

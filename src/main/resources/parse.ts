// Resource text → plain values. JSON is YAML, so one parser reads both; it is strict where YAML is lax.
import { LineCounter, isAlias, isCollection, isMap, isScalar, parseAllDocuments, visit } from 'yaml';
import type { Document, ParsedNode, Range } from 'yaml';
import { MAX_NESTING, findTooDeepNesting } from './nesting.js';
import { parsePlainJson } from './plain-json.js';
import { ViolationList } from './validation-error.js';

const TITLE = 'resource is not valid YAML or JSON';
/**
 * Aliases per document. yaml's toJS looks each alias up among every anchor and alias before it,
 * so 20,000 of them took 10 s; a resource that repeats a block a hundred times is already odd.
 */
export const MAX_ALIASES = 100;
/**
 * Text the YAML parser reads (YAML, and JSON that is not plain: a key twice, too deep). The parser
 * is linear but slow, about 2 µs a byte on the event loop every stream shares; a Dataplane with a
 * thousand outbounds is about 100 KB. Plain JSON is read up to the API's body limit.
 */
export const MAX_YAML_BYTES = 256 * 1024;
/** Syntax problems named one by one; a text repeating one key 20,000 times need not list them all. */
export const MAX_REPORTED_PROBLEMS = 20;

interface ParsedDocument {
  value: unknown;
  /** Where the document starts, to point at it. */
  start: string;
}

/** One resource, as YAML or JSON. Several documents, duplicate keys or any syntax error throw a ValidationError. */
export function parseResourceText(text: string): unknown {
  const documents = readDocuments(text);
  const violations = new ViolationList();
  if (documents.length === 0) {
    violations.add('', 'the text is empty: expected one resource');
  } else if (documents.length > 1) {
    violations.add(
      '',
      `${documents[1]!.start}: expected one resource, found ${documents.length} documents separated by "---"`,
    );
  }
  violations.throwIfAny(TITLE);
  return documents[0]!.value;
}

/** Every resource of a multi-document (`---`) file, in order; empty documents (a trailing `---`) are skipped. */
export function parseResourceDocuments(text: string): unknown[] {
  return readDocuments(text).map((document) => document.value);
}

function readDocuments(text: string): ParsedDocument[] {
  const json = parsePlainJson(text);
  if (json) return [{ value: json.value, start: 'line 1, column 1' }];
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_YAML_BYTES) {
    const violations = new ViolationList();
    violations.add(
      '',
      `the text is ${bytes} bytes: YAML (or JSON with a key given twice) may be at most ${MAX_YAML_BYTES} bytes, far more than any resource needs`,
    );
    violations.throwIfAny(TITLE);
  }
  // Before parsing: the parser recurses per level, and too deep a text would exhaust the stack.
  const tooDeep = findTooDeepNesting(text);
  if (tooDeep) {
    const violations = new ViolationList();
    violations.add('', `line ${tooDeep.line}, column ${tooDeep.column}: nested deeper than ${MAX_NESTING} levels, far deeper than any resource`);
    violations.throwIfAny(TITLE);
  }
  const lineCounter = new LineCounter();
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const documents = parseAllDocuments(text, {
    lineCounter,
    prettyErrors: false,
    strict: true,
    // yaml compares each key with every key before it in its mapping: 20,000 keys took 12 s.
    // unsupportedNodes finds duplicate keys instead, with one Set per mapping.
    uniqueKeys: false,
    // `!!binary`, `!!set`, `!!timestamp` would turn into Buffers, Sets and Dates: not JSON, so refuse them.
    resolveKnownTags: false,
  });

  const violations = new ViolationList();
  let unreported = 0;
  const report = (message: string): void => {
    if (violations.violations.length < MAX_REPORTED_PROBLEMS) violations.add('', message);
    else unreported += 1;
  };
  const parsed: ParsedDocument[] = [];
  for (const document of documents) {
    const problems = [...document.errors, ...document.warnings].map((problem) => ({
      offset: problem.pos[0],
      message: problem.message,
    }));
    problems.push(...unsupportedNodes(document));
    for (const problem of problems) report(`${at(problem.offset)}: ${problem.message}`);
    if (problems.length > 0 || isEmpty(document)) continue;

    const start = at(document.range[0]);
    try {
      parsed.push({ value: document.toJS(), start });
    } catch (error) {
      // toJS refuses alias bombs (maxAliasCount); report it like any other syntax problem.
      report(`${start}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (unreported > 0) violations.add('', `and ${unreported} more problem${unreported === 1 ? '' : 's'} like these`);
  violations.throwIfAny(TITLE);
  return parsed;
}

/**
 * Nodes the parser accepts but a JSON value cannot hold, or that would only fail later without a
 * position: duplicate keys, collection keys, aliases to no anchor, too many aliases. One walk,
 * linear in the document, and before toJS, which is not.
 */
function unsupportedNodes(document: Document.Parsed<ParsedNode>): { offset: number; message: string }[] {
  const found: { offset: number; message: string }[] = [];
  const offsetOf = (range: Range | null | undefined): number => range?.[0] ?? 0;
  /** Anchors met so far: the walk goes in document order, and an alias names an anchor before it. */
  const anchors = new Set<string>();
  let aliases = 0;
  visit(document, {
    Pair(_, pair) {
      if (isCollection(pair.key)) {
        found.push({ offset: offsetOf(pair.key.range), message: 'a mapping key must be a string, not a collection' });
      }
    },
    // One visitor for every node: yaml calls only the most specific one (Map or else Node).
    Node(_, node) {
      if (isAlias(node)) {
        // Alias.resolve would walk the whole document once per alias.
        if (!anchors.has(node.source)) found.push({ offset: offsetOf(node.range), message: `unknown alias *${node.source}` });
        else if (++aliases === MAX_ALIASES + 1) found.push({ offset: offsetOf(node.range), message: `more than ${MAX_ALIASES} aliases in one document` });
        return;
      }
      if (node.anchor) anchors.add(node.anchor);
      if (isMap(node)) {
        // Keys equal as yaml's own uniqueKeys check compares them: scalars by value.
        const keys = new Set<unknown>();
        for (const { key } of node.items) {
          if (!isScalar(key)) continue;
          if (keys.has(key.value)) found.push({ offset: offsetOf(key.range), message: 'Map keys must be unique' });
          keys.add(key.value);
        }
      }
    },
  });
  return found;
}

/** A document with no content at all, such as the one after a trailing `---`. An explicit `null` is not empty. */
function isEmpty(document: Document.Parsed<ParsedNode>): boolean {
  const contents = document.contents;
  return contents === null || (isScalar(contents) && contents.value === null && contents.source === '');
}

// Resource text → plain values. JSON is YAML, so one parser reads both; it is strict where YAML is lax.
import { LineCounter, isCollection, isScalar, parseAllDocuments, visit } from 'yaml';
import type { Document, ParsedNode, Range } from 'yaml';
import { MAX_NESTING, findTooDeepNesting } from './nesting.js';
import { parsePlainJson } from './plain-json.js';
import { ViolationList } from './validation-error.js';

const TITLE = 'resource is not valid YAML or JSON';

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
    uniqueKeys: true,
    // `!!binary`, `!!set`, `!!timestamp` would turn into Buffers, Sets and Dates: not JSON, so refuse them.
    resolveKnownTags: false,
  });

  const violations = new ViolationList();
  const parsed: ParsedDocument[] = [];
  for (const document of documents) {
    const problems = [...document.errors, ...document.warnings].map((problem) => ({
      offset: problem.pos[0],
      message: problem.message,
    }));
    problems.push(...unsupportedNodes(document));
    for (const problem of problems) violations.add('', `${at(problem.offset)}: ${problem.message}`);
    if (problems.length > 0 || isEmpty(document)) continue;

    const start = at(document.range[0]);
    try {
      parsed.push({ value: document.toJS(), start });
    } catch (error) {
      // toJS refuses alias bombs (maxAliasCount); report it like any other syntax problem.
      violations.add('', `${start}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  violations.throwIfAny(TITLE);
  return parsed;
}

/** Nodes the parser accepts but a JSON value cannot hold, or that would only fail later without a position. */
function unsupportedNodes(document: Document.Parsed<ParsedNode>): { offset: number; message: string }[] {
  const found: { offset: number; message: string }[] = [];
  const offsetOf = (range: Range | null | undefined): number => range?.[0] ?? 0;
  visit(document, {
    Pair(_, pair) {
      if (isCollection(pair.key)) {
        found.push({ offset: offsetOf(pair.key.range), message: 'a mapping key must be a string, not a collection' });
      }
    },
    Alias(_, alias) {
      if (alias.resolve(document) === undefined) {
        found.push({ offset: offsetOf(alias.range), message: `unknown alias *${alias.source}` });
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

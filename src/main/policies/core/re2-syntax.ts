// Regular expressions as Envoy and gRPC read them: RE2's syntax, checked with the RE2 engine
// @grpc/grpc-js-xds itself uses (re2-wasm), so that what meshdesk accepts no client refuses. A
// JavaScript RegExp accepts lookbehind, backreferences and more that RE2 does not; grpc-js-xds
// throws on them (its client exits) and Envoy NACKs the route.
import re2 from 're2-wasm';
import type { ViolationList } from '../../resources/validation-error.js';

const { RE2 } = re2;

/**
 * Why RE2 refuses `pattern`, with the offset of the part it names (`invalid perl operator: (?<` at
 * offset 2), or undefined when RE2 reads it. The pattern is also read as grpc-js-xds anchors it
 * (`^…$`). RE2's own memory bound (a pattern too large to compile) is refused the same way.
 * Envoy's program-size limit cannot be measured here: re2-wasm does not expose the program size.
 */
export function re2Problem(pattern: string): string | undefined {
  for (const candidate of [pattern, `^${pattern}$`]) {
    try {
      new RE2(candidate, 'u');
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      return describe(pattern, candidate, error.message);
    }
  }
  return undefined;
}

/** Reports at `path` a regex RE2 refuses. */
export function checkRe2(pattern: string | undefined, path: string, violations: ViolationList): void {
  // RE2 reads an empty pattern; Envoy's RegexMatcher refuses one (string.min_len 1).
  if (!pattern) {
    violations.add(path, 'must not be empty: Envoy matches by a regex of at least one character');
    return;
  }
  const problem = re2Problem(pattern);
  if (problem !== undefined) violations.add(path, problem);
}

function describe(pattern: string, candidate: string, message: string): string {
  // re2-wasm quotes the pattern as a RegExp literal, its slashes escaped.
  const prefix = `Invalid regular expression: /${candidate.replace(/(^|[^\\])\//g, '$1\\/')}/u: `;
  const reason = message.startsWith(prefix) ? message.slice(prefix.length) : (/^Invalid regular expression: \/.*\/u: (.*)$/s.exec(message)?.[1] ?? message);
  // RE2 ends its message with the part of the pattern it refuses (`missing ]: [a`).
  const part = reason.slice(reason.lastIndexOf(': ') + 2);
  const offset = part === '' ? -1 : pattern.indexOf(part);
  const at = offset === -1 ? '' : ` at offset ${offset}`;
  return `must be a regular expression in RE2 syntax, which Envoy and gRPC use: ${reason}${at}`;
}

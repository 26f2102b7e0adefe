import { MAX_NESTING } from './nesting.js';

/**
 * The value of `text` when it is plain JSON that the YAML path would accept as it is: an object or
 * array, no key twice in one object, nested at most MAX_NESTING deep. Undefined otherwise, and the
 * YAML parser then reads it and says what is wrong, with a line and column.
 *
 * Why: proxies send their Dataplane as JSON in node metadata, and clients send JSON bodies. The
 * YAML parser costs about 0.4 ms for a Dataplane, JSON.parse and this scan a few µs: in a storm of
 * a thousand registrations that is the difference between the parser and the wire being the cost.
 */
export function parsePlainJson(text: string): { value: unknown } | undefined {
  const start = text.trimStart()[0];
  if ((start !== '{' && start !== '[') || !hasOnlyUniqueKeysWithinNesting(text)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * Scans strings and brackets only, iteratively (so any depth is safe to scan); on text that is not
 * JSON it may answer either way, and JSON.parse decides.
 */
function hasOnlyUniqueKeysWithinNesting(text: string): boolean {
  /** Keys seen per open collection; null for an array. */
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return false;
      const keys = open.at(-1);
      if (expectingKey && keys) {
        const raw = text.slice(index + 1, end);
        let key: string;
        try {
          key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        } catch {
          return false;
        }
        if (keys.has(key)) return false;
        keys.add(key);
        expectingKey = false;
      }
      index = end;
    } else if (char === '{' || char === '[') {
      open.push(char === '{' ? new Set() : null);
      if (open.length > MAX_NESTING) return false;
      expectingKey = char === '{';
    } else if (char === '}' || char === ']') {
      open.pop();
      expectingKey = false;
    } else if (char === ',') {
      expectingKey = open.at(-1) instanceof Set;
    }
  }
  return true;
}

// Go's encoding/json syntax check (scanner.go, checkValid), which Kuma's API runs over a body before
// anything else: the same decisions and the same words, so that a JSON body that is not JSON gets the
// message Kuma gives ("invalid character ',' looking for beginning of object key string").

type Step = (byte: number) => void;

class GoJsonSyntaxError extends Error {}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * The syntax error Go's json.Unmarshal reports for `text`, or undefined when Go finds none. Go scans
 * bytes, not characters, so a multi-byte character is judged (and quoted) byte by byte, as Go does.
 */
export function goJsonSyntaxError(text: string): string | undefined {
  const scanner = new Scanner();
  try {
    for (const byte of Buffer.from(text, 'utf8')) scanner.step(byte);
    scanner.end();
    return undefined;
  } catch (error) {
    if (error instanceof GoJsonSyntaxError) return error.message;
    throw error;
  }
}

/** Go's scanner: a step function per state and a stack of what each open container expects next. */
class Scanner {
  step: Step = (c) => this.beginValue(c);
  #stack: ('key' | 'value' | 'element')[] = [];
  #endTop = false;

  end(): void {
    if (this.#endTop) return;
    this.step(0x20); // a number at the very end is complete only when something follows it
    if (!this.#endTop) throw new GoJsonSyntaxError('unexpected end of JSON input');
  }

  #fail(c: number, context: string): never {
    throw new GoJsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  }

  beginValue(c: number): void {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b: // {
        this.#stack.push('key');
        this.step = (next) => this.#beginKeyOrEmpty(next);
        return;
      case 0x5b: // [
        this.#stack.push('element');
        this.step = (next) => this.#beginValueOrEmpty(next);
        return;
      case 0x22: // "
        this.step = (next) => this.#inString(next);
        return;
      case 0x2d: // -
        this.step = (next) => this.#negative(next);
        return;
      case 0x30: // 0
        this.step = (next) => this.#afterZero(next);
        return;
      case 0x74: // t
        return this.#literal('true');
      case 0x66: // f
        return this.#literal('false');
      case 0x6e: // n
        return this.#literal('null');
    }
    if (c >= 0x31 && c <= 0x39) {
      this.step = (next) => this.#integer(next);
      return;
    }
    this.#fail(c, 'looking for beginning of value');
  }

  #beginValueOrEmpty(c: number): void {
    if (isSpace(c)) return;
    if (c === 0x5d) return this.#endValue(c);
    this.beginValue(c);
  }

  #beginKeyOrEmpty(c: number): void {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      this.#stack[this.#stack.length - 1] = 'value';
      return this.#endValue(c);
    }
    this.#beginKey(c);
  }

  #beginKey(c: number): void {
    if (isSpace(c)) return;
    if (c !== 0x22) this.#fail(c, 'looking for beginning of object key string');
    this.step = (next) => this.#inString(next);
  }

  #endValue(c: number): void {
    const top = this.#stack.at(-1);
    if (top === undefined) {
      this.#endTop = true;
      this.step = (next) => this.#endTopLevel(next);
      return this.step(c);
    }
    this.step = (next) => this.#endValue(next);
    if (isSpace(c)) return;
    if (top === 'key') {
      if (c !== 0x3a) this.#fail(c, 'after object key');
      this.#stack[this.#stack.length - 1] = 'value';
      this.step = (next) => this.beginValue(next);
    } else if (top === 'value') {
      if (c === 0x2c) {
        this.#stack[this.#stack.length - 1] = 'key';
        this.step = (next) => this.#beginKey(next);
      } else if (c === 0x7d) this.#pop();
      else this.#fail(c, 'after object key:value pair');
    } else {
      if (c === 0x2c) this.step = (next) => this.beginValue(next);
      else if (c === 0x5d) this.#pop();
      else this.#fail(c, 'after array element');
    }
  }

  #pop(): void {
    this.#stack.pop();
    if (this.#stack.length === 0) {
      this.#endTop = true;
      this.step = (next) => this.#endTopLevel(next);
    } else {
      this.step = (next) => this.#endValue(next);
    }
  }

  #endTopLevel(c: number): void {
    if (!isSpace(c)) this.#fail(c, 'after top-level value');
  }

  #inString(c: number): void {
    if (c === 0x22) this.step = (next) => this.#endValue(next);
    else if (c === 0x5c) this.step = (next) => this.#escape(next);
    else if (c < 0x20) this.#fail(c, 'in string literal');
  }

  #escape(c: number): void {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) this.step = (next) => this.#inString(next);
    else if (c === 0x75) this.step = (next) => this.#unicodeEscape(next, 4);
    else this.#fail(c, 'in string escape code');
  }

  #unicodeEscape(c: number, left: number): void {
    if (!isHex(c)) this.#fail(c, 'in \\u hexadecimal character escape');
    this.step = left === 1 ? (next) => this.#inString(next) : (next) => this.#unicodeEscape(next, left - 1);
  }

  #negative(c: number): void {
    if (c === 0x30) this.step = (next) => this.#afterZero(next);
    else if (c >= 0x31 && c <= 0x39) this.step = (next) => this.#integer(next);
    else this.#fail(c, 'in numeric literal');
  }

  #integer(c: number): void {
    if (!isDigit(c)) this.#afterZero(c);
  }

  #afterZero(c: number): void {
    if (c === 0x2e) this.step = (next) => this.#afterDot(next);
    else if (c === 0x65 || c === 0x45) this.step = (next) => this.#exponent(next);
    else this.#endValue(c);
  }

  #afterDot(c: number): void {
    if (!isDigit(c)) this.#fail(c, 'after decimal point in numeric literal');
    this.step = (next) => this.#fraction(next);
  }

  #fraction(c: number): void {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) this.step = (next) => this.#exponent(next);
    else this.#endValue(c);
  }

  #exponent(c: number): void {
    if (c === 0x2b || c === 0x2d) this.step = (next) => this.#exponentSign(next);
    else this.#exponentSign(c);
  }

  #exponentSign(c: number): void {
    if (!isDigit(c)) this.#fail(c, 'in exponent of numeric literal');
    this.step = (next) => this.#exponentDigits(next);
  }

  #exponentDigits(c: number): void {
    if (!isDigit(c)) this.#endValue(c);
  }

  /** After the first letter of `true`, `false` or `null`: each next letter, or Go's "expecting" error. */
  #literal(word: string, at = 1): void {
    this.step = (c) => {
      const expected = word.charCodeAt(at);
      if (c !== expected) this.#fail(c, `in literal ${word} (expecting ${quoteChar(expected)})`);
      if (at === word.length - 1) this.step = (next) => this.#endValue(next);
      else this.#literal(word, at + 1);
    };
  }
}

/** Go's quoteChar: the byte as a rune, in single quotes, escaped as strconv.Quote escapes it. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  return `'${goQuoted(c)}'`;
}

const NAMED_ESCAPES: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\' };

/**
 * strconv.Quote's body for the rune U+0000–U+00FF: ASCII controls escaped, the rest as it is. (The
 * only bytes above 0x7F Go can stop at in UTF-8 text start a character, 0xC2–0xF4: all printable.)
 */
function goQuoted(c: number): string {
  const named = NAMED_ESCAPES[c];
  if (named) return named;
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  return String.fromCharCode(c);
}

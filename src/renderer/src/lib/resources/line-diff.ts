// Two texts compared line by line, for the conflict view: what is stored now against what the
// user wrote. Resources are a few dozen lines, so the plain longest-common-subsequence table is enough.

export interface DiffLine {
  /** `same` in both, `stored` only in the stored text, `yours` only in the user's. */
  kind: 'same' | 'stored' | 'yours';
  text: string;
}

export function lineDiff(stored: string, yours: string): DiffLine[] {
  const a = linesOf(stored);
  const b = linesOf(yours);
  // common[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1]![j]! >= common[i]![j + 1]!)) {
      // The stored side first, as a unified diff shows a replaced line.
      lines.push({ kind: 'stored', text: a[i++]! });
    } else {
      lines.push({ kind: 'yours', text: b[j++]! });
    }
  }
  return lines;
}

function linesOf(text: string): string[] {
  return text.replace(/\n$/, '').split('\n');
}

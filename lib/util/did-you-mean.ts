// The did-you-mean of every "unknown key/flag/setting" error: the accepted word nearest a typo.

/**
 * The choice nearest `word` (case-insensitive edit distance), or undefined when none is near enough:
 * within 2 edits, or a third of the word's length for long words ("hedaers", "agrs", "--outptu").
 */
export function closest(word: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of choices) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestScore) [best, bestScore] = [c, d];
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** " (did you mean X?)" for a near miss, so the error says the likely fix; "" when nothing is near */
export function suggest(word: string, choices: readonly string[]): string {
  const near = closest(word, choices);
  return near === undefined ? "" : ` (did you mean ${near}?)`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

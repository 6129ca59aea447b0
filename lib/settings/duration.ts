// Strict duration parsing: "250ms", "2.5s", "1m", "1h", or "0". A bare number other than 0 is
// refused because "30" could mean seconds or milliseconds, and guessing is how timeouts go wrong.
// (The `ms` package accepts bare numbers and prose like "1 hour", which is why it is not used.)

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** the accepted forms, as one pattern (also the JSON Schema `pattern` of ExecOptions.timeout) */
export const DURATION_PATTERN = /^(?:0|(\d+(?:\.\d+)?)(ms|s|m|h))$/;

/** milliseconds, or an error message naming the accepted forms */
export function parseDuration(text: string): number | string {
  const m = DURATION_PATTERN.exec(text.trim());
  if (!m) return `"${text}" is not a duration: use a number with a unit, like 250ms, 2.5s, 1m or 1h (0 for none)`;
  return m[1] === undefined ? 0 : Math.round(Number(m[1]) * UNITS[m[2]!]!);
}

export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

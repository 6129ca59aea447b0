// Whether a daemon.token is a lock worth the name. A token guards a TCP port every local process
// can reach, so a placeholder (16 spaces, "changeme…", one key held down) must not start a daemon.

/**
 * The shortest daemon.token accepted: 16 characters of base64 or hex are 64 bits and more. Raise
 * it, never lower it.
 */
const TOKEN_MIN_LENGTH = 16;

/**
 * The fewest different characters a token must use. A random 16-character hex token uses fewer than
 * 5 with a chance of about 4 in 10 million, a held-down key or a pattern like "abababab…" always does.
 */
const TOKEN_MIN_DISTINCT = 5;

const HOW = "make one with `openssl rand -hex 24` (or `head -c 24 /dev/urandom | base64`) and set it as MCPX_DAEMON_TOKEN";

/** why this token is refused, or undefined for one that may guard the daemon */
export function weakTokenReason(token: string): string | undefined {
  // bearerOk trims what it is sent, so a token with blanks at its ends could never match; inside, a random token has none
  if (/[\s\p{Cc}]/u.test(token)) return `holds whitespace or control characters, which a random token never does: ${HOW}`;
  const length = [...token].length;
  if (length < TOKEN_MIN_LENGTH) return `is ${length} characters long, and a token must have at least ${TOKEN_MIN_LENGTH}: ${HOW}`;
  const distinct = new Set(token).size;
  if (distinct < TOKEN_MIN_DISTINCT)
    return `uses only ${distinct} different character${distinct === 1 ? "" : "s"}, and a token must use at least ${TOKEN_MIN_DISTINCT}: ${HOW}`;
  return undefined;
}

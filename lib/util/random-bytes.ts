// Random names, ids and secrets from Web Crypto, which Bun has built in: importing node:crypto
// instead costs ~10 ms of CPU at start-up (measured on the binary as bare Bun, 16 ms against 5 ms
// for an empty script), and every exec's path went through such an import.

function randomBytes(n: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(n)));
}

/** n random bytes as 2n hex digits: temporary files' names, ids */
export function randomHex(n: number): string {
  return randomBytes(n).toString("hex");
}

/** n random bytes as base64url: a run's token and nonce, short on the wire */
export function randomBase64url(n: number): string {
  return randomBytes(n).toString("base64url");
}

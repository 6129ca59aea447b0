// Random names for temporary files, ids and the like, from Web Crypto, which Bun has built in:
// importing node:crypto instead costs ~10 ms of CPU at start-up (measured on the binary as bare Bun,
// 16 ms against 5 ms for an empty script), and every exec's path went through such an import.

/** n random bytes as 2n hex digits */
export function randomHex(n: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("hex");
}

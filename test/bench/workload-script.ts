// Bench fixture, run by `mcpx run` from test/bench/bench.ts (rows 13 and 14); sdk-workload.ts is its
// raw-SDK peer and does the same calls in the same order. Two modes, each printing one JSON line:
//
//   bytes SIZE N SHA256   N sequential fake.bytes({size: SIZE}) calls, after one untimed call whose
//                         answer must hash to SHA256 (the bench computes it from fixtures/servers/payload.ts);
//                         every timed answer is checked by its length and its first and last 64 characters.
//                         Prints {"mode":"bytes","n":N,"ms":loop time}.
//   flight K TOTAL        TOTAL fake.echo calls in batches of K at once (Promise.all; K=1 is sequential),
//                         each with its own message and checked against it, after K untimed calls at
//                         once. Prints {"mode":"flight","n":TOTAL,"ms":time of the batches}.

import { createHash } from "node:crypto";

type Fake = { echo: (a: { message: string }) => Promise<unknown>; bytes: (a: { size: number }) => Promise<unknown> };

export default async function main(args: string[]): Promise<void> {
  // `fake` is a global that mcpx installs; reached through globalThis so this file type-checks alone
  const fake = (globalThis as unknown as { fake: Fake }).fake;
  const [mode, a, b, sha] = args;
  if (mode === "bytes") {
    const size = Number(a);
    const n = Number(b);
    const first = await fake.bytes({ size });
    if (typeof first !== "string" || createHash("sha256").update(first).digest("hex") !== sha)
      throw new Error(`fake.bytes(${size}) answered ${typeof first === "string" ? `${first.length} characters of another text` : typeof first}`);
    const [head, tail] = [first.slice(0, 64), first.slice(-64)];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const out = await fake.bytes({ size });
      if (typeof out !== "string" || out.length !== size || !out.startsWith(head) || !out.endsWith(tail))
        throw new Error(`call ${i}: fake.bytes(${size}) answered another text`);
    }
    console.log(JSON.stringify({ mode, n, ms: performance.now() - t0 }));
    return;
  }
  if (mode === "flight") {
    const k = Number(a);
    const total = Number(b);
    const batch = async (from: number, count: number) => {
      const messages = Array.from({ length: count }, (_, i) => `f-${from + i}`);
      const outs = await Promise.all(messages.map((message) => fake.echo({ message })));
      outs.forEach((out, i) => {
        if (out !== messages[i]) throw new Error(`call ${from + i}: expected ${messages[i]}, got ${JSON.stringify(out)}`);
      });
    };
    await batch(-k, k);
    const t0 = performance.now();
    for (let done = 0; done < total; done += k) await batch(done, Math.min(k, total - done));
    console.log(JSON.stringify({ mode, n: total, ms: performance.now() - t0 }));
    return;
  }
  throw new Error(`usage: bytes SIZE N SHA256 | flight K TOTAL (got ${JSON.stringify(args)})`);
}

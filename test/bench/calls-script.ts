// Bench fixture, run by `mcpx run` from test/bench/bench.ts: N sequential fake.echo calls through the
// mcpx globals. Only the loop is timed (the first calls start the server and warm both sides up), and
// the result is printed as one JSON line: {"n": N, "ms": loop time}.

type Echo = (args: { message: string }) => Promise<unknown>;

export default async function main(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 1000);
  const warmup = Number(args[1] ?? 20);
  // `fake` is a global that mcpx installs; reached through globalThis so this file type-checks alone
  const fake = (globalThis as unknown as { fake: { echo: Echo } }).fake;
  for (let i = 0; i < warmup; i++) await fake.echo({ message: "warm" });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const out = await fake.echo({ message: "x" });
    if (out !== "x") throw new Error(`call ${i}: expected "x", got ${JSON.stringify(out)}`);
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ n, ms }));
}

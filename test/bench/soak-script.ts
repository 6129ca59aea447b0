// The soak, run by `mcpx run` from test/e2e/workloads-soak.test.ts (which asserts the
// counts) and from test/bench/bench.ts (which prints the timings): SEQUENTIAL fake.echo calls one
// after another, then CONCURRENT at once, each with its own message, each answer checked against its
// own call. Prints one JSON line: {sequential, concurrent, answered, mismatches, sequentialMs, concurrentMs}.

type Echo = (args: { message: string }) => Promise<unknown>;

export default async function main(args: string[]): Promise<void> {
  const sequential = Number(args[0] ?? 10_000);
  const concurrent = Number(args[1] ?? 1_000);
  // `fake` is a global that mcpx installs; reached through globalThis so this file type-checks alone
  const fake = (globalThis as unknown as { fake: { echo: Echo } }).fake;
  let answered = 0;
  let mismatches = 0;
  const t0 = performance.now();
  for (let i = 0; i < sequential; i++) {
    const message = `seq-${i}`;
    const out = await fake.echo({ message });
    answered++;
    if (out !== message) mismatches++;
  }
  const t1 = performance.now();
  const messages = Array.from({ length: concurrent }, (_, i) => `conc-${i}`);
  const outs = await Promise.all(messages.map((message) => fake.echo({ message })));
  outs.forEach((out, i) => {
    answered++;
    if (out !== messages[i]) mismatches++;
  });
  const t2 = performance.now();
  console.log(JSON.stringify({ sequential, concurrent, answered, mismatches, sequentialMs: t1 - t0, concurrentMs: t2 - t1 }));
}

// A module hook that calls a tool through the generated client (fake.echo) and answers with advice
// naming what it got, or the error its call failed with: a test sees whether the call passed the gate.
/** the generated client's namespace, which mcpx installs as a global when it runs this file */
declare const fake: { echo(args: { message: string }): Promise<unknown> };

export default async function () {
  try {
    const value = await fake.echo({ message: "from module" });
    return { advise: `module called echo: ${JSON.stringify(value)}` };
  } catch (e) {
    return { advise: `module's call failed: ${(e as Error).message}` };
  }
}

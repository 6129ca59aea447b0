// The one rule for a name a script gives a file mcpx writes for it (a workspace file, an artifact,
// which `--artifacts DIR` writes into a directory of the user's): one file name, never a path, never
// a dot file (`.bashrc`, `..`), nothing a terminal would act on.

/** why `name` is not a file name of this kind, or undefined when it is one; `what` names the kind, with its article ("an artifact name") */
export function badFileName(name: unknown, what: string): string | undefined {
  const rule = `${what} is one file name: 1 to 255 bytes, no "/" or "\\", no control characters, not starting with "."`;
  if (typeof name !== "string") return `the name is ${name === null ? "null" : typeof name}, not a string: ${rule}`;
  if (!NAME.test(name) || Buffer.byteLength(name) > 255) return `${JSON.stringify(name)} is not ${what}: ${rule}`;
  return undefined;
}

const NAME = /^[^./\\\x00-\x1f\x7f-\x9f][^/\\\x00-\x1f\x7f-\x9f]*$/;

/** one tab-separated line: a field's backslashes, tabs and newlines escaped, so a row is always one line of its columns */
export function tsvRow(...fields: string[]): string {
  const escaped = (f: string) => f.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);
  return `${fields.map(escaped).join("\t")}\n`;
}

// A document's generated part: the text between a BEGIN and an END marker line, rewritten from a
// table so the docs cannot drift from the code. Pure: document in, document out.

/** the document with the part between `begin` and `end` replaced by `body`; throws when the markers are missing or out of order */
export function withGeneratedBlock(doc: string, begin: string, end: string, body: string): string {
  const b = doc.indexOf(begin);
  const e = doc.indexOf(end);
  if (b < 0 || e < b) throw new Error(`the document needs the lines ${begin} and ${end}, in that order, around the generated part`);
  return doc.slice(0, b + begin.length) + "\n" + body + doc.slice(e);
}

// The routes table of docs/daemon.md, derived from the route table (routes.ts) so the docs cannot
// list a route the daemon does not serve, or miss one it does. Pure: document in, document out.

import { ROUTES } from "./routes.ts";

export const ROUTES_BEGIN = "<!-- BEGIN GENERATED routes -->";
export const ROUTES_END = "<!-- END GENERATED routes -->";

function routesMarkdown(): string {
  const rows = ROUTES.map((r) => `| ${r.methods.map((m) => `\`${m} ${r.path}\``).join("<br>")} | ${r.doc.replace(/\|/g, "\\|")} |`);
  return ["| route | answers |", "| --- | --- |", ...rows].join("\n") + "\n";
}

/** the document with its generated routes table rewritten */
export function withGeneratedRoutes(doc: string): string {
  const begin = doc.indexOf(ROUTES_BEGIN);
  const end = doc.indexOf(ROUTES_END);
  if (begin < 0 || end < begin) throw new Error(`the document needs the lines ${ROUTES_BEGIN} and ${ROUTES_END}, in that order, around the routes table`);
  return doc.slice(0, begin + ROUTES_BEGIN.length) + "\n" + routesMarkdown() + doc.slice(end);
}

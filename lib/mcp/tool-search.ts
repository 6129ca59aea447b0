// The tools that best fit an intent in words, across every server: BM25F over each tool's fields
// (its name and its server's, its parameters' names, its description and its parameters' words),
// with no model and no state, so the same catalogue and query always give the same list in the same
// order. What `mcpx search`, mcpx_search and the daemon's catalogue all rank with.

import type { Tool } from "./tool.ts";

/** one server's visible tools, in the order the server lists them */
export interface SearchableServer {
  server: string;
  tools: readonly Tool[];
}

export interface SearchHit {
  server: string;
  tool: Tool;
  /** BM25F score, rounded to 3 decimals so that ties are the same on every machine */
  score: number;
}

/** how many hits a search gives when not told; the most it gives is MAX_SEARCH_LIMIT */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;

// BM25's usual constants: k1 saturates a term's repeats, b normalises by a field's length
const K1 = 1.2;
const B = 0.75;

/**
 * How much a match in each field counts. A tool's name says what it does most tersely; a parameter
 * name is nearly as telling (`path`, `content`); a description is long and says much in passing.
 */
const FIELD_WEIGHTS = { name: 3, server: 1.5, params: 2, description: 1, paramText: 0.7 } as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

/** what a query word that only a related word matches counts for, beside the word itself */
const RELATED_WEIGHT = 0.6;

/**
 * Words an agent says for what tool lists spell otherwise, both ways: a small hand-made list of the
 * intents an agent most often has (remembering, adding up, fetching), never a model. Keys and values
 * are stems (see stem()).
 */
// biome-ignore format: a word table, one intent a line
const RELATED: Record<string, readonly string[]> = {
  remember: ["memory", "observation", "entity", "add", "create"],
  memorize: ["memory", "observation", "entity", "add", "create"],
  recall: ["memory", "search", "read"],
  fact: ["observation", "entity"],
  note: ["observation"],
  person: ["entity"],
  people: ["entity"],
  add: ["sum", "create"],
  plus: ["sum"],
  total: ["sum"],
  save: ["write", "store", "create"],
  store: ["write", "create"],
  make: ["create"],
  new: ["create"],
  remove: ["delete"],
  forget: ["delete"],
  erase: ["delete"],
  get: ["read", "fetch"],
  fetch: ["get", "read"],
  open: ["read"],
  show: ["read", "list", "get"],
  find: ["search"],
  look: ["search"],
  folder: ["directory"],
  dir: ["directory"],
  rename: ["move"],
  change: ["edit"],
  modify: ["edit"],
  update: ["edit"],
  picture: ["image"],
  photo: ["image"],
  compress: ["gzip"],
  zip: ["gzip"],
};

// biome-ignore format: a word list
const STOP = new Set([
  "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with", "about", "into", "and",
  "or", "is", "are", "be", "it", "its", "this", "that", "these", "those", "as", "i", "me", "my", "we",
  "our", "you", "your", "some", "any", "can", "will", "please", "which", "what", "how", "do", "does",
]);

/** a word without its plural: Harman's S-stemmer (files → file, entities → entity, numbers → number) */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies") && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("es") && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith("s") && !/[us]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** the stems of a text: names split at camelCase, `_`, `-`, `.`, `/` and any other non-letter */
export function tokens(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !STOP.has(w))
    .map(stem);
}

/** the query's terms, each with its weight: its own words 1, related words RELATED_WEIGHT (unless said too) */
function queryTerms(query: string): Map<string, number> {
  const terms = new Map<string, number>();
  const own = tokens(query);
  for (const t of own) terms.set(t, 1);
  for (const t of own) for (const r of RELATED[t] ?? []) if (!terms.has(r)) terms.set(r, RELATED_WEIGHT);
  return terms;
}

type Doc = Record<Field, string[]>;

/** a tool's fields, as words: the parameters' names and words are read through nested objects and arrays */
function docOf(server: string, tool: Tool): Doc {
  const params: string[] = [];
  const paramText: string[] = [];
  walkSchema(tool.inputSchema, params, paramText, 0);
  return {
    name: tokens(tool.name),
    server: tokens(server),
    params: params.flatMap(tokens),
    description: tokens(tool.description ?? ""),
    paramText: paramText.flatMap(tokens),
  };
}

/** deeper than this, a schema's properties are not read (a recursive or generated schema stays cheap) */
const MAX_SCHEMA_DEPTH = 4;

function walkSchema(schema: unknown, names: string[], texts: string[], depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH || typeof schema !== "object" || schema === null) return;
  const s = schema as Record<string, unknown>;
  if (typeof s.properties === "object" && s.properties !== null) {
    for (const [name, prop] of Object.entries(s.properties)) {
      names.push(name);
      const d = (prop as { description?: unknown } | null)?.description;
      if (typeof d === "string") texts.push(d);
      walkSchema(prop, names, texts, depth + 1);
    }
  }
  if (s.items !== undefined) walkSchema(s.items, names, texts, depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(s[key])) for (const sub of s[key] as unknown[]) walkSchema(sub, names, texts, depth + 1);
}

/**
 * The tools that match `query` best, best first, at most `limit`; a tool matching none of its words
 * is left out. Ties go by the servers' order (config order, as given) and then the tool's name.
 */
export function searchTools(servers: readonly SearchableServer[], query: string, limit = DEFAULT_SEARCH_LIMIT): SearchHit[] {
  const terms = queryTerms(query);
  if (terms.size === 0) return [];
  const entries = servers.flatMap((s, order) => s.tools.map((tool) => ({ server: s.server, order, tool, doc: docOf(s.server, tool) })));
  if (entries.length === 0) return [];
  const avgLen = Object.fromEntries(FIELDS.map((f) => [f, entries.reduce((n, e) => n + e.doc[f].length, 0) / entries.length || 1])) as Record<Field, number>;
  // document frequency: how many tools have the term in any field
  const df = new Map<string, number>();
  for (const e of entries) {
    const seen = new Set(FIELDS.flatMap((f) => e.doc[f]));
    for (const t of terms.keys()) if (seen.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const n = entries.length;
  const scored = entries.map((e) => {
    let score = 0;
    for (const [term, weight] of terms) {
      const d = df.get(term) ?? 0;
      if (d === 0) continue;
      // BM25F: the fields' weighted, length-normalised counts are summed before saturating
      let tf = 0;
      for (const f of FIELDS) {
        const count = e.doc[f].filter((w) => w === term).length;
        if (count > 0) tf += (FIELD_WEIGHTS[f] * count) / (1 - B + (B * e.doc[f].length) / avgLen[f]);
      }
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      score += weight * idf * (tf / (K1 + tf));
    }
    return { server: e.server, order: e.order, tool: e.tool, score: Math.round(score * 1000) / 1000 };
  });
  return scored
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0))
    .slice(0, Math.max(0, limit))
    .map(({ server, tool, score }) => ({ server, tool, score }));
}

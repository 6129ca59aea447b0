// `$ref` handling for schema-to-ts: resolving local JSON pointers, and finding the references that
// TypeScript could not express as aliases because they loop without passing through an object or
// array (`type A = B | string; type B = A` is "circularly references itself").

export type SchemaObject = Record<string, unknown>;

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The `#...` pointer a `$ref` names, or undefined for what we do not resolve: remote documents,
// `$id`-relative and anchor (`#name`) references. Those are typed `unknown` rather than guessed.
export function localPointer(ref: unknown): string | undefined {
  if (typeof ref !== "string") return undefined;
  return ref === "#" || ref.startsWith("#/") ? ref : undefined;
}

// Follows a local JSON pointer (RFC 6901, URI-fragment form) from the root schema.
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "#") return root;
  let node: unknown = root;
  for (const raw of pointer.slice(2).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isSchemaObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

// The last pointer segment, which is what a reader knows the definition by (`#/$defs/Node` → Node).
export function pointerName(pointer: string): string {
  const last = pointer.split("/").pop() ?? "";
  try {
    return decodeURIComponent(last).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    return last;
  }
}

// References a schema makes at "top level": through `$ref` and the combinators, but not through
// properties or items, where TypeScript allows recursion. Must mirror where schema-to-ts renders.
function unguardedRefs(schema: unknown, depth = 0): string[] {
  if (!isSchemaObject(schema) || depth > 64) return [];
  const out: string[] = [];
  const pointer = localPointer(schema.$ref);
  if (pointer !== undefined) out.push(pointer);
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const members = schema[key];
    if (Array.isArray(members)) for (const m of members) out.push(...unguardedRefs(m, depth + 1));
  }
  return out;
}

// Decides which unguarded references must be typed `unknown` to keep the output compiling: the
// edges from → to where `to` leads back to `from`. Breaking every edge of such a loop is more than
// strictly needed, but such schemas describe nothing a value could satisfy usefully anyway.
export class CycleBreaker {
  private readonly edges = new Map<string, string[]>();

  constructor(private readonly root: unknown) {}

  isBroken(from: string, to: string): boolean {
    return this.reaches(to, from);
  }

  private edgesOf(pointer: string): string[] {
    let found = this.edges.get(pointer);
    if (found === undefined) {
      found = unguardedRefs(resolvePointer(this.root, pointer));
      this.edges.set(pointer, found);
    }
    return found;
  }

  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    const queue = [from];
    while (queue.length > 0) {
      const node = queue.pop() as string;
      if (node === to) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      queue.push(...this.edgesOf(node));
    }
    return false;
  }
}

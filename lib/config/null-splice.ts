// The null-splice rule that layers every repeatable setting (script.<phase>, hooks) across
// default → config files (farthest → nearest) → env → flags.
//
// A layer's list REPLACES what it inherits unless it contains null (JSON; the settings layer maps
// a "-" flag/env value to null before calling this), which splices the inherited items in at that
// position. So:
//   absent layer (undefined)  inherits unchanged, as if it were [null]
//   []                        clears everything inherited (all of it is reported as shadowed)
//   [null]                    inherits unchanged
//   ["a", null, "b"] over ["x","y"]  →  ["a","x","y","b"]
//   [null, null] over ["x"]   →  ["x","x"]: every null splices a full copy. We chose copies over
//                             "first null wins" or an error because it is the plain reading of
//                             the rule and a duplicated line is visible in `mcpx settings`.

export interface Layer<T> {
  /** where the layer came from: "default", a file path, "MCPX_SCRIPT_BEFORE", "--before", … */
  origin: string;
  items: Array<T | null>;
  /** a finer origin per item, where the layer knows one (a config file's line); else the layer's */
  itemOrigins?: Array<string | undefined>;
}

interface Sourced<T> {
  value: T;
  /** the origin of the layer that contributed this item (spliced items keep their own origin) */
  origin: string;
}

export interface Spliced<T> {
  items: Array<Sourced<T>>;
  /** inherited items that a replacing layer dropped, in the order they were dropped */
  shadowed: Array<Sourced<T>>;
}

/** Layers ordered lowest precedence first; returns the effective list and what was shadowed. */
export function spliceLayers<T>(layers: ReadonlyArray<Layer<T> | undefined>): Spliced<T> {
  let items: Array<Sourced<T>> = [];
  const shadowed: Array<Sourced<T>> = [];
  for (const layer of layers) {
    if (layer === undefined) continue;
    const inherited = items;
    if (!layer.items.includes(null)) shadowed.push(...inherited);
    items = [];
    layer.items.forEach((item, i) => {
      if (item === null) items.push(...inherited);
      else items.push({ value: item, origin: layer.itemOrigins?.[i] ?? layer.origin });
    });
  }
  return { items, shadowed };
}

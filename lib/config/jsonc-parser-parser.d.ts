// Types for jsonc-parser's parser module, imported on its own (lib/config/jsonc.ts says why): the
// same functions, with the types the package's main entry gives them.
declare module "jsonc-parser/lib/esm/impl/parser.js" {
  export const parse: typeof import("jsonc-parser").parse;
  export const parseTree: typeof import("jsonc-parser").parseTree;
  export const findNodeAtLocation: typeof import("jsonc-parser").findNodeAtLocation;
  export const getNodeValue: typeof import("jsonc-parser").getNodeValue;
  export const visit: typeof import("jsonc-parser").visit;
}

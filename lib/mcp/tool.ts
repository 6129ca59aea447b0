// A tool and a tools/call result as mcpx reads them, and the one way to read a result's text and to
// make any value a result. A leaf: the pool, the gate's hook-tool and plugin calls, codegen and
// mcpx's own MCP server all take these shapes from here.

// A tool as the catalogue lists it (the MCP `Tool` shape, narrowed to what mcpx reads).
export interface Tool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

export type CallResult = { content?: unknown[]; structuredContent?: unknown; isError?: boolean; [k: string]: unknown };

// One configured MCP server after validation and expansion: the shape the pool starts, plugins bring
// and `mcpx ls` shows. A leaf, so validating (servers.ts) and expanding (expand.ts) both use it
// without importing each other.

export type ServerConfig =
  | {
      name: string;
      kind: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      /** absolute: a relative cwd in the file is resolved against the file's directory */
      cwd?: string;
      /** the config file the entry came from */
      origin: string;
    }
  | { name: string; kind: "http"; url: string; headers: Record<string, string>; origin: string };

// The one error type for everything config: it always names the file, and the line, column and key
// when they are known, so a user can jump straight to the spot and fix it.

import { McpxError } from "../errors/mcpx-error.ts";

export interface ConfigErrorInit {
  /** the config file, or the flag/variable that named a file that does not exist */
  file: string;
  /** 1-based; absent when the problem is not at a place in the text (a missing file) */
  line?: number;
  /** 1-based; absent when only the line is known */
  column?: number;
  /** dotted key path, e.g. mcpServers.foo.command */
  key?: string;
  /** what is wrong and what to do about it, without the location prefix */
  detail: string;
}

export class ConfigError extends McpxError {
  readonly file: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly key: string | undefined;
  readonly detail: string;

  constructor(init: ConfigErrorInit) {
    super(formatConfigError(init), "CONFIG");
    this.file = init.file;
    this.line = init.line;
    this.column = init.column;
    this.key = init.key;
    this.detail = init.detail;
  }
}

/** `file:line:column: key a.b: detail`, leaving out the parts that are unknown. */
function formatConfigError(init: ConfigErrorInit): string {
  let where = init.file;
  if (init.line !== undefined) {
    where += `:${init.line}`;
    if (init.column !== undefined) where += `:${init.column}`;
  }
  const key = init.key === undefined ? "" : `key ${init.key}: `;
  return `${where}: ${key}${init.detail}`;
}

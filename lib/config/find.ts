// Which config files apply to a run, lowest precedence first. Only existence is checked here;
// reading and validating is load.ts's job.

import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { ancestors } from "../paths/ancestors.ts";
import { ConfigError } from "./errors.ts";

export type Env = Readonly<Record<string, string | undefined>>;

export interface FindOptions {
  cwd: string;
  env: Env;
  /** from --config FILE */
  explicit?: string | undefined;
  /** told every path looked at, found or not (Session.consulted) */
  onProbe?: (path: string) => void;
  /** told the text of every file read, as it was read (lib/session/session-note.ts checks it later) */
  onRead?: (path: string, text: string) => void;
}

/** Per directory, lowest precedence first: the .mcpx/ folder is the shared base, .mcpx.json beside it overrides. */
const PROJECT_FILES = [join(".mcpx", "config.json"), ".mcpx.json"] as const;

/**
 * --config FILE, else MCPX_CONFIG, is exactly one file and must exist. Otherwise: the user file
 * ($XDG_CONFIG_HOME/mcpx/config.json, default $HOME/.config/mcpx/config.json), then the project
 * files of every directory from the filesystem root down to cwd — so the nearest file wins.
 * `isFile` is the only I/O; tests may replace it.
 */
export function findConfigFiles(opts: FindOptions, isRegular: (path: string) => boolean = isRegularFile): string[] {
  const isFile = (path: string) => {
    opts.onProbe?.(path);
    return isRegular(path);
  };
  const cwd = resolve(opts.cwd);
  const chosen = explicitFile(opts);
  if (chosen) {
    const path = resolve(cwd, chosen.path);
    let exists: boolean;
    try {
      exists = isFile(path);
    } catch (err) {
      if (err instanceof ConfigError) throw new ConfigError({ file: path, detail: `named by ${chosen.via}, ${err.detail}` });
      throw err;
    }
    if (!exists) {
      throw new ConfigError({
        file: path,
        detail: `named by ${chosen.via}, does not exist: fix the path or drop ${chosen.via}`,
      });
    }
    return [path];
  }

  const project: string[] = [];
  for (const dir of ancestors(cwd)) {
    // Collected nearest-first, so each directory's pair is pushed in reverse and the list flipped at the end.
    for (const name of [...PROJECT_FILES].reverse()) {
      const path = join(dir, name);
      if (isFile(path)) project.push(path);
    }
  }
  project.reverse();

  const user = userConfigFile(opts.env);
  return user !== undefined && isFile(user) ? [user, ...project] : project;
}

/** $XDG_CONFIG_HOME/mcpx/config.json, else $HOME/.config/mcpx/config.json; undefined when neither is set. */
export function userConfigFile(env: Env): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) {
    // The XDG spec calls a relative value invalid; guessing what it is relative to would read the
    // wrong file depending on where mcpx was started, so it is an error instead.
    if (!isAbsolute(xdg)) {
      throw new ConfigError({
        file: "XDG_CONFIG_HOME",
        detail: `must be an absolute path, got ${JSON.stringify(xdg)}: set it to an absolute path or unset it`,
      });
    }
    return join(xdg, "mcpx", "config.json");
  }
  // No HOME (a bare container): there is simply no user file.
  return env.HOME ? join(env.HOME, ".config", "mcpx", "config.json") : undefined;
}

/** The one file named by --config or MCPX_CONFIG, and which of them named it; undefined when neither. */
// The flag wins over the variable, as flags win over env everywhere. An empty MCPX_CONFIG counts
// as unset (`MCPX_CONFIG= mcpx …` is how people unset a variable for one command).
export function explicitFile(opts: FindOptions): { path: string; via: string } | undefined {
  if (opts.explicit !== undefined) {
    if (opts.explicit === "") throw new ConfigError({ file: "--config", detail: "needs a file path" });
    return { path: opts.explicit, via: "--config" };
  }
  if (opts.env.MCPX_CONFIG) return { path: opts.env.MCPX_CONFIG, via: "MCPX_CONFIG" };
  return undefined;
}

// Missing is normal; anything else at a config path (a directory, a permission error) would
// otherwise drop that file's settings without a word, so it is an error.
function isRegularFile(path: string): boolean {
  let isFile: boolean;
  try {
    // no exception for a missing file, the common case: a thrown one is costly, and it would be paid for each directory up from cwd
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return false;
    isFile = stat.isFile();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw new ConfigError({ file: path, detail: `cannot be read (${code ?? String(err)}): fix its permissions or remove it` });
  }
  if (!isFile) throw new ConfigError({ file: path, detail: "is not a regular file: a config file must be a file; rename or remove it" });
  return true;
}

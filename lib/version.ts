// The one version string; build.ts checks it matches package.json.
export const VERSION = "0.1.0";

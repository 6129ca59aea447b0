// lib/paths: the walk-up order every "nearest first" search uses.

import { expect, test } from "bun:test";
import { ancestors } from "../../lib/paths/ancestors.ts";

test("ancestors: the directory itself first, then each parent, ending at the root", () => {
  expect(ancestors("/a/b/c")).toEqual(["/a/b/c", "/a/b", "/a", "/"]);
  expect(ancestors("/")).toEqual(["/"]);
  expect(ancestors("/a/b/../c/")).toEqual(["/a/c", "/a", "/"]);
});

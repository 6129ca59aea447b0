// The note a script's error gets when it used a server's identifier that is not a global.

import { describe, expect, test } from "bun:test";
import { namespaceBindings } from "../../lib/codegen/identifiers.ts";
import { withHiddenNamespaceNote } from "../../lib/codegen/hidden-namespace.ts";

const bindings = namespaceBindings(["fetch", "window", "fake"]);
const noted = (message: string) => withHiddenNamespaceNote({ name: "TypeError", message }, bindings).message;

describe("withHiddenNamespaceNote", () => {
  test("Bun's and V8's 'is not a function' for a hidden server name the server and tools[NAME].TOOL", () => {
    expect(noted("fetch.echo is not a function")).toBe(
      'fetch.echo is not a function: server "fetch" is not the global fetch (fetch is a JavaScript or runtime global): ' +
        'call its tools as tools["fetch"].echo(…)',
    );
  });

  test("JavaScriptCore's evaluating form is recognised too", () => {
    expect(noted("undefined is not an object (evaluating 'window.read_file')")).toContain('tools["window"].read_file(…)');
  });

  test("an error that mentions no hidden server, or one only as part of a longer name, is left as it was", () => {
    expect(noted("fake.nope is not a function")).toBe("fake.nope is not a function");
    expect(noted("node-fetch.x failed; myfetch.y too")).toBe("node-fetch.x failed; myfetch.y too");
  });
});

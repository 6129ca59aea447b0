// callFailure: why a tools/call failed, decided by the SDK's error codes and the connection's state,
// never by the words of a message.

import { describe, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { callFailure } from "../../lib/mcp/call-failure.ts";

describe("callFailure", () => {
  test("the SDK's own request timeout (code -32001 with its { timeout } data) is a timeout", () => {
    expect(callFailure(new McpError(-32001, "Request timed out", { timeout: 500 }), false)).toBe("timeout");
  });

  test("a server's error with the same code and words but without the SDK's data is the server's error", () => {
    expect(callFailure(new McpError(-32001, "Request timed out"), false)).toBe("server");
    expect(callFailure(new McpError(-32603, "upstream timed out, connection closed"), false)).toBe("server");
  });

  test("any failure on a connection that closed is closed, whatever its words", () => {
    expect(callFailure(new McpError(-32000, "Connection closed"), true)).toBe("closed");
    expect(callFailure(new McpError(-32001, "Request timed out", { timeout: 1 }), true)).toBe("closed");
  });

  test("a transport failure (not an answer from the server) is closed", () => {
    expect(callFailure(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }), false)).toBe("closed");
    expect(callFailure(new Error("Not connected"), false)).toBe("closed");
  });
});

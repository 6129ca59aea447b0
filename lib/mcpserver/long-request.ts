// A request too large to read (over mcp.maxMessage on stdio, over daemon.maxBody on /mcp) is still
// answered when its id can be found: the client then gets an error for that one request instead of
// waiting for ever or losing its connection. Only the two ends of the line are kept, so the id is
// looked for where clients write it: first (`{"jsonrpc":"2.0","id":1,…`) or last (the SDK writes
// `{"method":…,"params":…,"jsonrpc":"2.0","id":1}`).

import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Id = string | number;

/** JSON's string and number tokens, as they may stand for an id */
const STRING = String.raw`"(?:[^"\\\u0000-\u001f]|\\.)*"`;
const NUMBER = String.raw`-?\d+`;
const SCALAR = new RegExp(String.raw`^\s*(${STRING}|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`);
const KEY = new RegExp(String.raw`^\s*(${STRING})\s*:`);
/** `"id": ID }` closing the line: the last member of the outermost object, so the message's own id */
const LAST_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*(${STRING}|${NUMBER})\s*\}\s*$`);

/**
 * The id of a JSON-RPC message cut to its first and last bytes, or undefined when neither end shows
 * one: its first members up to the first that is an object or an array, and its last member.
 */
export function idOfCutMessage(head: string, tail: string): Id | undefined {
  return firstId(head) ?? lastId(tail);
}

function firstId(head: string): Id | undefined {
  let rest = head.replace(/^\s*\{/, "");
  if (rest === head) return undefined;
  for (;;) {
    const key = KEY.exec(rest);
    if (!key) return undefined;
    rest = rest.slice(key[0].length);
    const value = SCALAR.exec(rest);
    // an object or array value (params) ends what can be read from the start
    if (!value) return undefined;
    const after = rest.slice(value[0].length);
    // a value that reaches the end of what was kept may have been cut (an id 12 of 1234)
    if (after.trim() === "") return undefined;
    if (JSON.parse(key[1]!) === "id") return asId(value[1]!);
    rest = after.replace(/^\s*,/, "");
  }
}

function lastId(tail: string): Id | undefined {
  const m = LAST_ID.exec(tail);
  return m ? asId(m[1]!) : undefined;
}

function asId(token: string): Id | undefined {
  const v = JSON.parse(token) as unknown;
  return typeof v === "string" || (typeof v === "number" && Number.isInteger(v)) ? v : undefined;
}

/** the JSON-RPC answer to a request that was too large: -32600 Invalid Request, saying what to do */
export function tooLargeAnswer(id: Id | null, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: -32600, message } } as JSONRPCMessage;
}

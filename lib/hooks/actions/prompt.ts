// prompt hooks: text with @placeholders, each filled with the JSON encoding of a payload value
// (never substituted as raw text, so payload text cannot pose as instructions), sent to an
// OpenAI-compatible chat endpoint named by the model.* settings.

export interface ModelConfig {
  url: string;
  name: string;
  apiKey?: string;
}

/** fills @a.b.c in strings (deeply, for plugin args) with JSON.stringify of that payload path */
export function fillPlaceholders(value: unknown, payload: Record<string, unknown>): unknown {
  if (typeof value === "string") {
    return value.replace(/@([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)/g, (whole, path: string) => {
      let v: unknown = payload;
      for (const part of path.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
      return v === undefined ? whole : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, payload));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, payload)]));
  return value;
}

export async function askModel(model: ModelConfig, text: string, timeoutMs: number): Promise<string> {
  const url = model.url.replace(/\/+$/, "") + "/chat/completions";
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}) },
    body: JSON.stringify({ model: model.name, messages: [{ role: "user", content: text }] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const body = (await res.json()) as { choices?: Array<{ message?: { content?: string } }> };
  return body.choices?.[0]?.message?.content ?? "";
}

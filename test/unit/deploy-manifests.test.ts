// The example manifests under docs/deploy/ hold what docs/deploy.md promises: the container runs
// `mcpx daemon`, its probes are `mcpx daemon status` (GET /v1/health) and `status --ready` (GET
// /v1/health/ready), routes the route table serves; the daemon's address is a loopback TCP address
// the probes inside the container reach, its token comes from a Secret, the grace period exceeds
// daemon.drainGrace, and every variable is an mcpx setting's or a standard OpenTelemetry one. The
// manifests in docs/deploy.md are these files, verbatim (docs-commands.test.ts leaves ```yaml here).

import { expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAddress } from "../../lib/daemon/address.ts";
import { ROUTES } from "../../lib/daemon/routes.ts";
import { parseDuration } from "../../lib/settings/duration.ts";
import { envName } from "../../lib/settings/setting-names.ts";
import { SETTINGS } from "../../lib/settings/registry.ts";
import { fencedBlocks } from "../e2e/doc-blocks.ts";

const ROOT = join(import.meta.dir, "../..");
const DIR = join(ROOT, "docs/deploy");
const DOC = join(ROOT, "docs/deploy.md");

/** the variables of the OpenTelemetry SDK environment specification a manifest may set */
const OTEL_NAMES = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_SERVICE_NAME",
  "OTEL_RESOURCE_ATTRIBUTES",
];

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  command: string[];
  env: EnvVar[];
  livenessProbe: { exec: { command: string[] } };
  readinessProbe: { exec: { command: string[] } };
  startupProbe?: { exec: { command: string[] } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}
interface Deployment {
  kind: string;
  spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } } };
}

const k8s = Bun.YAML.parse(readFileSync(join(DIR, "kubernetes.yaml"), "utf8")) as Deployment;
const pod = k8s.spec.template.spec;
const mcpx = pod.containers.find((c) => c.command[0] === "mcpx")!;
const env = (name: string) => mcpx.env.find((e) => e.name === name);

test("the Deployment's container runs mcpx daemon", () => {
  expect(k8s.kind).toBe("Deployment");
  expect(mcpx.command.slice(0, 2)).toEqual(["mcpx", "daemon"]);
});

test("its probes are mcpx daemon status and status --ready, which ask routes the route table serves", () => {
  const paths = ROUTES.filter((r) => r.methods.includes("GET")).map((r) => r.path);
  expect(paths).toContain("/v1/health");
  expect(paths).toContain("/v1/health/ready");
  expect(mcpx.livenessProbe.exec.command).toEqual(["mcpx", "daemon", "status"]);
  expect(mcpx.readinessProbe.exec.command).toEqual(["mcpx", "daemon", "status", "--ready"]);
  if (mcpx.startupProbe) expect(mcpx.startupProbe.exec.command).toEqual(["mcpx", "daemon", "status"]);
  // what --ready asks, in the code the probe runs
  expect(readFileSync(join(ROOT, "lib/daemon/lifecycle.ts"), "utf8")).toContain('"GET", "/v1/health/ready"');
});

test("the daemon listens on a loopback TCP address, with its token from a Secret", () => {
  const address = env(envName("daemon.address"))!.value!;
  expect(parseAddress(address, {})).toMatchObject({ kind: "tcp", host: "127.0.0.1" });
  expect(env(envName("daemon.token"))!.valueFrom?.secretKeyRef).toMatchObject({ name: expect.any(String), key: expect.any(String) });
  expect(env(envName("daemon.token"))!.value).toBeUndefined();
  expect(env(envName("daemon.startServers"))!.value).toBe("1");
});

test("the grace period exceeds daemon.drainGrace, as set here and by default", () => {
  const graceMs = pod.terminationGracePeriodSeconds * 1000;
  const set = parseDuration(env(envName("daemon.drainGrace"))!.value!);
  const byDefault = parseDuration(String(SETTINGS.find((s) => s.path === "daemon.drainGrace")!.default));
  expect(typeof set).toBe("number");
  expect(graceMs).toBeGreaterThan(set as number);
  expect(graceMs).toBeGreaterThan(byDefault as number);
});

test("every variable is an mcpx setting's, a standard OpenTelemetry one, or HOME", () => {
  const settingEnv = new Set(SETTINGS.map((s) => envName(s.path)));
  const names = mcpx.env.map((e) => e.name);
  expect(names.filter((n) => !settingEnv.has(n) && !OTEL_NAMES.includes(n) && n !== "HOME")).toEqual([]);
  expect(names).toContain("OTEL_EXPORTER_OTLP_ENDPOINT");
});

test("the container asks for CPU and memory and caps its memory", () => {
  expect(Object.keys(mcpx.resources.requests).sort()).toEqual(["cpu", "memory"]);
  expect(mcpx.resources.limits.memory).toBeDefined();
});

test("docs/deploy.md shows each manifest verbatim, and every ```yaml block in it is one of them", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".yaml"));
  const texts = files.map((f) => readFileSync(join(DIR, f), "utf8").trim());
  const blocks = fencedBlocks("docs/deploy.md", readFileSync(DOC, "utf8")).filter((b) => b.lang === "yaml");
  expect(blocks.map((b) => texts.includes(b.body.trim()))).toEqual(blocks.map(() => true));
  expect(texts.map((t) => blocks.some((b) => b.body.trim() === t))).toEqual(texts.map(() => true));
});

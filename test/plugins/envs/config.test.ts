import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readEnvsConfig } from "../../../src/server/env/config.ts";
import { Environments } from "../../../src/server/env/environments.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dataWith(content: string | null): string {
	const dir = mkdtempSync(join(tmpdir(), "p2-envs-config-"));
	dirs.push(dir);
	if (content !== null) writeFileSync(join(dir, "envs.json"), content);
	return dir;
}

test("no envs.json: this device only, and no problem", () => {
	expect(readEnvsConfig(dataWith(null))).toEqual({ environments: [], problem: null });
});

test("a valid entry gets ssh's defaults", () => {
	const config = readEnvsConfig(dataWith(JSON.stringify({ environments: [{ name: "gpu", host: "gpu.lan" }] })));
	expect(config).toEqual({
		problem: null,
		environments: [{ name: "gpu", host: "gpu.lan", port: 22, user: null, identityFile: null, directory: null }],
	});
});

test("each problem is named with its place, and a broken file configures nothing", () => {
	const dir = dataWith(
		JSON.stringify({
			environments: [
				{ name: "g", host: "-oProxyCommand=evil" },
				{ name: "local", host: "a", user: "-x" },
				{ name: "ok", host: "b", directory: "relative/dir" },
				{ name: "ok", host: "c" },
			],
		}),
	);
	const config = readEnvsConfig(dir);
	expect(config.environments).toEqual([]);
	const problem = config.problem ?? "";
	expect(problem).toStartWith(`envs.json (${join(dir, "envs.json")}): `);
	expect(problem).toContain("environments[0].name must be 2 to 32 letters");
	expect(problem).toContain('environments[0].host must be a host name or address (was "-oProxyCommand=evil")');
	expect(problem).toContain('environments[1].name must not be "local"');
	expect(problem).toContain('environments[1].user must be a user name (was "-x")');
	expect(problem).toContain("environments[2].directory must be an absolute path or start with ~");
	expect(problem).toContain("environments[3].name ok is used twice");
});

test("shape and syntax errors say where", () => {
	expect(readEnvsConfig(dataWith('{"environments": [{"name": "gpu", "host": "h", "port": 70000}]}')).problem).toContain(
		"environments[0].port must be at most 65535",
	);
	expect(readEnvsConfig(dataWith('{"environments": [}')).problem).toContain("not valid JSON at line 1");
	expect(readEnvsConfig(dataWith('{"environments": [], "extra": 1}')).problem).toContain("extra");
});

test("an unknown environment is refused by name", () => {
	const envs = new Environments({ dataDir: dataWith(null) });
	expect(envs.get("local").remote).toBe(false);
	expect(() => envs.get("gpu")).toThrow("Unknown environment gpu (not in envs.json)");
});

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buildGuestScript } from "../../src/server/bundle.ts";

const ROOT = join(import.meta.dir, "../..");

interface Override {
	readonly includes: string[];
	readonly groups: string[][];
}

/** biome.json's overrides, each with its include globs and the groups of its restricted-import patterns. */
function overrides(): Override[] {
	const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as {
		overrides: {
			includes: string[];
			linter?: { rules?: { style?: { noRestrictedImports?: { options?: { patterns?: { group: string[] }[] } } } } };
		}[];
	};
	return config.overrides.map((override) => ({
		includes: override.includes,
		groups: (override.linter?.rules?.style?.noRestrictedImports?.options?.patterns ?? []).map((p) => p.group),
	}));
}

/** Whether `path` is among an override's files: one of its globs takes it and none of its `!` globs leaves it out. */
function covers(override: Override, path: string): boolean {
	const taken = override.includes
		.filter((glob) => !glob.startsWith("!"))
		.some((glob) => new Bun.Glob(glob).match(path));
	const left = override.includes
		.filter((glob) => glob.startsWith("!"))
		.some((glob) => new Bun.Glob(glob.slice(1)).match(path));
	return taken && !left;
}

/** The overrides that forbid what guest code may not import: Bun's and Node's modules, and the server. */
function sandboxRules(): Override[] {
	return overrides().filter((override) => {
		const banned = override.groups.flat();
		return ["node:*", "bun", "bun:*"].every((name) => banned.includes(name)) && banned.includes("**/server/**");
	});
}

describe("the lint of guest code", () => {
	test("the rule finds a file by its globs, and a server file is outside it", () => {
		const rules = sandboxRules();
		expect(rules.some((rule) => covers(rule, "src/guest/runtime.ts"))).toBe(true);
		expect(rules.some((rule) => covers(rule, "src/plugins/chat/server.ts"))).toBe(false);
		expect(rules.some((rule) => covers(rule, "src/server/plugin.ts"))).toBe(false);
	});

	test("covers every source file the guest bundle is built from: none may reach files, processes or the network", async () => {
		const { inputs } = await buildGuestScript();
		const sources = inputs
			.map((input) => relative(ROOT, input))
			.filter((path) => path.startsWith("src/"))
			.sort();
		// The bundle holds plugins' files beside the core's: a test that saw none would prove nothing.
		expect(sources.filter((path) => path.startsWith("src/plugins/")).length).toBeGreaterThan(20);
		const rules = sandboxRules();
		const outside = sources.filter((path) => !rules.some((rule) => covers(rule, path)));
		expect(outside).toEqual([]);
	}, 60_000);
});

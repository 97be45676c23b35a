import { describe, expect, test } from "bun:test";
import { BOUND_GLOBALS, buildGuestScript } from "../../src/server/bundle.ts";

describe("the guest bundle", () => {
	test("carries no arktype: no module of it is an input, and none of its code is in the text", async () => {
		const { source, inputs } = await buildGuestScript();
		expect(inputs.filter((path) => /node_modules\/(arktype|@ark)\//.test(path))).toEqual([]);
		// Its validators come from the module precompiled at build time; `arktype` is the inert shim.
		expect(inputs.some((path) => path.endsWith("src/guest/arktype-shim.ts"))).toBe(true);
		expect(inputs.some((path) => path.includes("precompiled-validators"))).toBe(true);
		expect(inputs.some((path) => path.endsWith("src/plugins/chat/contract.ts"))).toBe(true);
		// Markers of arktype's own code: its registry, its node kinds, its jitless mode, its compiled traversal.
		for (const marker of ["$ark", "arkKind", "jitless", "precompilation", "errorFromNodeContext"]) {
			expect({ marker, found: source.includes(marker) }).toEqual({ marker, found: false });
		}
	}, 60_000);

	test("reads the globals its code uses most as parameters of a function around it, not through the sandbox's scopes", async () => {
		const { source } = await buildGuestScript();
		const names = BOUND_GLOBALS.join(",");
		expect(source.startsWith(`((${names})=>{`)).toBe(true);
		expect(source.endsWith(`})(${names});`)).toBe(true);
		for (const name of ["Math", "Object", "Array", "String", "setTimeout", "globalThis"]) {
			expect(BOUND_GLOBALS).toContain(name as (typeof BOUND_GLOBALS)[number]);
		}
	}, 60_000);
});

import { describe, expect, test } from "bun:test";
import { BOUND_GLOBALS, buildGuestScript } from "../../src/server/bundle.ts";

/** Where each string literal given to `evaluateDeferred(...)` lies in the minified bundle (its quotes' offsets). */
function deferredTexts(source: string): [number, number][] {
	const spans: [number, number][] = [];
	for (const call of source.matchAll(/evaluateDeferred\(/g)) {
		const open = call.index + call[0].length;
		const quote = source[open]!;
		if (!"'\"`".includes(quote)) continue;
		let at = open + 1;
		while (at < source.length && source[at] !== quote) at += source[at] === "\\" ? 2 : 1;
		spans.push([open, at]);
	}
	return spans;
}

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

	test("carries syntax highlighting, diagrams and the terminal emulator as text, evaluated at first use: none of their modules is parsed at start", async () => {
		const { source, inputs } = await buildGuestScript();
		expect(
			inputs.filter((path) => /node_modules\/(highlight\.js|lowlight|lovely-mermaid|@xterm)\//.test(path)),
		).toEqual([]);
		const deferred = inputs.filter((path) => path.startsWith("p2-deferred:")).map((path) => path.split("/").at(-1));
		expect(deferred.sort()).toEqual(["lovely-mermaid.ts", "lowlight.ts", "xterm-headless.ts"]);
		// Their code is in the bundle only as the text given to `evaluateDeferred`, never as code parsed at start.
		const texts = deferredTexts(source);
		expect(texts).toHaveLength(3);
		for (const marker of ["registerLanguage", "diagram truncated", "isLegacyEdge"]) {
			const outside = [...source.matchAll(new RegExp(marker, "g"))].filter(
				(m) => !texts.some(([from, to]) => m.index > from && m.index < to),
			);
			expect({
				marker,
				inside: texts.some(([from, to]) => source.slice(from, to).includes(marker)),
				outside: outside.length,
			}).toEqual({
				marker,
				inside: true,
				outside: 0,
			});
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

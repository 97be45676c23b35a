import { describe, expect, test } from "bun:test";
import { configure, type } from "../../src/guest/arktype-shim.ts";

// biome-ignore lint/suspicious/noExplicitAny: the shim stands in for arktype's whole surface.
const shim = type as any;

describe("the guest's arktype shim", () => {
	test("declaring and combining schemas is inert, as the contracts do at load", () => {
		const row = shim({ id: "string", name: "string" });
		const list = row.array().atMostLength(3);
		const either = shim.enumerated("a", "b").or("null");
		expect(typeof list).toBe("function");
		expect(typeof either).toBe("function");
	});

	test("a schema called as a check throws, naming it", () => {
		const list = shim({ id: "string", name: "string" }).array().atMostLength(3);
		expect(() => list([])).toThrow(
			"arktype is not in the guest bundle: the schema type({ id, name }).array().atMostLength(3) has no validator precompiled at build time",
		);
		expect(() => shim.enumerated("a", "b")("a")).toThrow('the schema type.enumerated("a", "b")');
	});

	test("arktype's refusals and configuration are not there either", () => {
		expect(() => shim.errors).toThrow("arktype is not in the guest bundle: type.errors");
		expect(() => configure()).toThrow("arktype/config's configure cannot be called there");
	});
});

/**
 * The modules the UI bundle carries as text (syntax highlighting, Mermaid diagrams) inside the real sandbox
 * (ses lockdown, a Compartment): evaluated there at first use, they answer as they do outside it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DEFERRED_SAMPLES, deferredOutputs } from "../support/deferred-samples.ts";
import { runGuestEntry } from "../support/guest-entry-run.ts";

describe("deferred modules in the sandbox", () => {
	test("highlight code and draw a diagram as they do outside it", async () => {
		const logs = await runGuestEntry(join(import.meta.dir, "..", "support", "deferred-entry.ts"));
		const expected = deferredOutputs(DEFERRED_SAMPLES);
		expect(logs).toEqual([...expected, "done"]);
		// Not empty answers on both sides: highlighted tokens and a drawn box.
		expect(expected[0]).toContain("\\u001b[38;2;");
		expect(expected[1]).toContain("\\u001b[38;2;");
		expect(expected[2]).toBe("code null");
		expect(expected[3]).toContain("┌───────┐");
		expect(expected[3]).toContain("Start");
	}, 60_000);
});

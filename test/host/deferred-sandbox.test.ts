/**
 * The modules the UI bundle carries as text (syntax highlighting, Mermaid diagrams) inside the real sandbox
 * (ses lockdown, a Compartment): evaluated there at first use, they answer as they do outside it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../../src/host/sandbox.ts";
import type { WorkerMessage } from "../../src/protocol/channel.ts";
import { buildGuestBundle } from "../../src/server/bundle.ts";
import { DEFERRED_SAMPLES, deferredOutputs } from "../support/deferred-samples.ts";
import { TEST_START } from "../support/start-data.ts";
import { waitUntil } from "../support/wait.ts";

describe("deferred modules in the sandbox", () => {
	test("highlight code and draw a diagram as they do outside it", async () => {
		const bundle = await buildGuestBundle({ entry: join(import.meta.dir, "..", "support", "deferred-entry.ts") });
		const messages: WorkerMessage[] = [];
		const sandbox = new Sandbox({
			bundle,
			start: TEST_START,
			onMessage: (m) => messages.push(m),
			onProblem: () => {},
			onEnd: () => {},
		});
		const logs = () =>
			messages.flatMap((m) =>
				m.kind === "log" && !m.text.startsWith("timeline ")
					? [m.text]
					: m.kind === "error"
						? [`error ${m.message}`]
						: [],
			);
		try {
			await waitUntil(
				() => logs().includes("done") || logs().some((l) => l.startsWith("error ")),
				"the guest's report",
				30_000,
			);
		} finally {
			sandbox.terminate();
		}
		const expected = deferredOutputs(DEFERRED_SAMPLES);
		expect(logs()).toEqual([...expected, "done"]);
		// Not empty answers on both sides: highlighted tokens and a drawn box.
		expect(expected[0]).toContain("\\u001b[38;2;");
		expect(expected[1]).toContain("\\u001b[38;2;");
		expect(expected[2]).toBe("code null");
		expect(expected[3]).toContain("┌───────┐");
		expect(expected[3]).toContain("Start");
	}, 60_000);
});

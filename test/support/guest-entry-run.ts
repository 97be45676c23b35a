/**
 * A test entry of the guest bundle, run in the real sandbox (ses lockdown, a Compartment): built like the UI
 * bundle, started, and read until it logs `done` (or fails). What it logged, one line each, without the
 * bootstrap's start-up timeline; an error the worker reported reads `error <message>`.
 */
import { Sandbox } from "../../src/host/sandbox.ts";
import type { WorkerMessage } from "../../src/protocol/channel.ts";
import { buildGuestBundle } from "../../src/server/bundle.ts";
import { TEST_START } from "./start-data.ts";
import { waitUntil } from "./wait.ts";

export async function runGuestEntry(entry: string): Promise<string[]> {
	const bundle = await buildGuestBundle({ entry });
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
			m.kind === "log" && !m.text.startsWith("timeline ") ? [m.text] : m.kind === "error" ? [`error ${m.message}`] : [],
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
	return logs();
}

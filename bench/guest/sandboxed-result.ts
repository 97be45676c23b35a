/**
 * Runs a benchmark's guest bundle in the real sandbox (ses lockdown, a Compartment) and resolves with the JSON
 * its entry logs (the worker's own start-up timeline line is not it).
 */
import { Sandbox } from "../../src/host/sandbox.ts";
import type { GuestBundle } from "../../src/server/server.ts";
import { BENCH_START } from "../../test/support/start-data.ts";

export function sandboxedResult<T>(bundle: GuestBundle): Promise<T> {
	return new Promise((resolve, reject) => {
		const sandbox = new Sandbox({
			bundle,
			start: BENCH_START,
			limits: { heartbeatTimeoutMs: 120_000 },
			onMessage(message) {
				if (message.kind === "log" && !message.text.startsWith("timeline ")) {
					sandbox.terminate();
					resolve(JSON.parse(message.text) as T);
				} else if (message.kind === "error") reject(new Error(message.message));
			},
			onProblem() {},
			onEnd(reason, detail) {
				if (reason !== "terminated") reject(new Error(`${reason}: ${detail}`));
			},
		});
	});
}

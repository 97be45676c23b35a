/**
 * Runs a benchmark's guest bundle in the real sandbox (ses lockdown, a Compartment) and resolves with the JSON
 * its entry logs (the worker's own start-up timeline line is not it).
 */
import { Sandbox } from "../../src/host/sandbox.ts";
import type { StartData } from "../../src/protocol/channel.ts";
import type { GuestBundle } from "../../src/server/server.ts";

const START: StartData = {
	origin: "http://127.0.0.1:1",
	columns: 120,
	rows: 40,
	capabilities: {
		kittyProtocol: false,
		modifyOtherKeys: false,
		trueColor: true,
		platform: "linux",
		windowsKeys: false,
	},
	env: {},
	mouse: "off",
	args: { verbose: false, draft: "", continue: false, resume: false },
	reason: "start",
};

export function sandboxedResult<T>(bundle: GuestBundle): Promise<T> {
	return new Promise((resolve, reject) => {
		const sandbox = new Sandbox({
			bundle,
			start: START,
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

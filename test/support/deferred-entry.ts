/**
 * A guest bundle entry for test/host/deferred-sandbox.test.ts: inside the real sandbox, it highlights code and
 * draws a Mermaid diagram (the modules the bundle carries as text) and logs what came out, one line each.
 */
import "../../src/guest/platform-prelude.ts";
import type { GuestEntry } from "../../src/protocol/channel.ts";
import { errorText } from "../../src/protocol/errors.ts";
import { DEFERRED_SAMPLES, deferredOutputs } from "./deferred-samples.ts";

const entry: GuestEntry = {
	start(host) {
		const log = (text: string) => host.post({ kind: "log", level: "info", text });
		try {
			for (const line of deferredOutputs(DEFERRED_SAMPLES)) log(line);
		} catch (error) {
			log(`failed: ${errorText(error)}`);
		}
		log("done");
		host.post({ kind: "ready" });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;

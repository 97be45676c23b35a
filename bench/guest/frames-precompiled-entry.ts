/** bench/validators.ts: the object client's per-frame cost with the bundle's precompiled validators. */
import "../../src/guest/platform-prelude.ts";
import { precompiledValidators } from "p2:precompiled-validators";
import type { GuestEntry } from "../../src/protocol/channel.ts";
import { precompiledChecks } from "../../src/protocol/schema-checks.ts";
import { frameCost } from "./state-frames.ts";

const entry: GuestEntry = {
	start(host) {
		const cost = frameCost({ checks: precompiledChecks(precompiledValidators) }, 300, 200);
		host.post({ kind: "log", level: "info", text: JSON.stringify(cost) });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;

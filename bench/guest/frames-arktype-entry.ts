/**
 * bench/validators.ts: the object client's per-frame cost with arktype itself in the sandbox (jitless), as the
 * guest checked before its validators were precompiled. Built without the guest's arktype shim.
 */
import "../../src/guest/platform-prelude.ts";
import "./arktype-jitless.ts";
import type { GuestEntry } from "../../src/protocol/channel.ts";
import { frameCost } from "./state-frames.ts";

const entry: GuestEntry = {
	start(host) {
		host.post({ kind: "log", level: "info", text: JSON.stringify(frameCost({}, 300, 200)) });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;

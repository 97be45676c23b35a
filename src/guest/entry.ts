/** The bundle's entry: the launcher's bootstrap calls `p2Guest.start(host)` inside the sandbox. */
import "./platform-prelude.ts";
import "./arktype-config.ts";
import type { GuestEntry } from "../protocol/channel.ts";
import { GuestRuntime } from "./runtime.ts";

const entry: GuestEntry = {
	start(host) {
		new GuestRuntime(host).start();
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;

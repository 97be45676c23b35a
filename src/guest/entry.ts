/** The bundle's entry: the launcher's bootstrap calls `p2Guest.start(host)` inside the sandbox. */
import "./platform-prelude.ts";
import { precompiledValidators } from "p2:precompiled-validators";
import type { GuestEntry } from "../protocol/channel.ts";
import { precompiledChecks } from "../protocol/schema-checks.ts";
import { GuestRuntime } from "./runtime.ts";

const entry: GuestEntry = {
	start(host) {
		new GuestRuntime(host, precompiledChecks(precompiledValidators)).start();
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;

import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const ListeningPort = lazy(() =>
	type({
		port: "number.integer >= 0",
		/** The address it listens on (`127.0.0.1`, `0.0.0.0`, `::`). */
		address: "string <= 64",
		/** The process that holds it, where the server may know it (its own user's processes). */
		pid: "number.integer | null",
		process: "string <= 64 | null",
	}),
);
export type ListeningPort = typeof ListeningPort.infer;

export const PortsState = lazy(() =>
	type({
		/** The environment the session's tools run in (`local`: the server's own machine). */
		env: "string <= 100",
		ports: ListeningPort.array().atMostLength(1000),
		/** Why the ports could not be listed; null when they were. */
		error: "string <= 500 | null",
		/** When they were listed. */
		at: "number",
	}),
);
export type PortsState = typeof PortsState.infer;

const owner = { state: PortsState, methods: ["refresh"] as const };

/**
 * `/ports`: the TCP ports listening in a session's environment, with their processes. Owners, and full guests
 * of the session when the owner allows it in /share (refused otherwise when opened).
 */
export const portsContract = defineContract({
	name: "ports",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: { refresh: method(type({}), type("null")) },
	variants: { deviceOwner: owner, owner, full: owner, view: null },
});

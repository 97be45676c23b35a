import { isRecord, own } from "./own-keys.ts";

/**
 * What a running server writes (0600) into its data directory so this device's launcher can find it and
 * prove it is the device owner. Another user of the machine cannot read it, so cannot connect as owner.
 */
export interface ServerInfo {
	readonly origin: string;
	readonly port: number;
	readonly pid: number;
	readonly deviceToken: string;
	/** Which build of p2 runs it (a launcher of another build asks a server it started itself to make way). */
	readonly build?: string;
	/** Started by a launcher (not `p2 serve`): it ends when idle, and makes way for another build on request. */
	readonly auto?: boolean;
}

/** `server.json` as read back (own keys, exact types), or undefined when it is not one. */
export function readServerInfo(raw: unknown): ServerInfo | undefined {
	if (!isRecord(raw)) return undefined;
	const origin = own(raw, "origin");
	const port = own(raw, "port");
	const pid = own(raw, "pid");
	const deviceToken = own(raw, "deviceToken");
	if (typeof origin !== "string" || !Number.isInteger(port) || !Number.isInteger(pid)) return undefined;
	if (typeof deviceToken !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(deviceToken)) return undefined;
	const build = own(raw, "build");
	const auto = own(raw, "auto") === true;
	return {
		origin,
		port: port as number,
		pid: pid as number,
		deviceToken,
		...(typeof build === "string" ? { build } : {}),
		...(auto ? { auto } : {}),
	};
}

export const SERVER_INFO_FILE = "server.json";
export const DEVICE_TOKEN_HEADER = "x-p2-device-token";
export const OWNER_COOKIE = "p2_owner";
export const GUEST_COOKIE = "p2_guest";
export const BUNDLE_PATH = "/__p2_tui";
export const SOCKET_PATH = "/__p2_ws";
/** POST by this device's owner: a server a launcher started is asked to make way (it refuses while busy). */
export const EXIT_PATH = "/__p2_exit";

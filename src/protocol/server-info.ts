import { type } from "arktype";
import { lazy } from "./lazy.ts";

/**
 * What a running server writes (0600) into its data directory so this device's launcher can find it and
 * prove it is the device owner. Another user of the machine cannot read it, so cannot connect as owner.
 */
export const ServerInfo = lazy(() =>
	type({
		origin: "string",
		port: "number.integer",
		pid: "number.integer",
		deviceToken: "/^[A-Za-z0-9_-]{43}$/",
	}),
);
export type ServerInfo = typeof ServerInfo.infer;

export const SERVER_INFO_FILE = "server.json";
export const DEVICE_TOKEN_HEADER = "x-p2-device-token";
export const OWNER_COOKIE = "p2_owner";
export const GUEST_COOKIE = "p2_guest";
export const BUNDLE_PATH = "/__p2_tui";
export const SOCKET_PATH = "/__p2_ws";

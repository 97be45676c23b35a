import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLaunchArgs } from "../../src/host/args.ts";
import type { Clock } from "../../src/host/clock.ts";
import { type LauncherOptions, type LauncherResult, runLauncher } from "../../src/host/launcher.ts";
import type { SandboxLimits } from "../../src/host/sandbox.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { FakeTerminal } from "./fake-terminal.ts";
import type { TestServer } from "./p2-server.ts";

export interface LauncherRun {
	readonly terminal: FakeTerminal;
	readonly result: Promise<LauncherResult>;
	/** The fake HOME the launcher reads the person's files from (removed by `done`). */
	readonly home: string;
	/** Types `q` (the test bundles exit on it) and resolves with the launcher's result; removes the home. */
	done(): Promise<LauncherResult>;
}

/**
 * The launcher, run in this process on a fake terminal against a test server (as this device's owner), with a
 * fresh HOME and the given bundle. Options override the launcher's own.
 */
export function runWithBundle(
	server: TestServer,
	bundle: string,
	options: {
		limits?: Partial<SandboxLimits>;
		clock?: Clock;
		env?: Record<string, string>;
		columns?: number;
		rows?: number;
		extra?: Partial<LauncherOptions>;
	} = {},
): LauncherRun {
	const home = mkdtempSync(join(tmpdir(), "p2-launcher-home-"));
	const terminal = new FakeTerminal(options.columns ?? 80, options.rows ?? 24);
	const result = runLauncher({
		args: parseLaunchArgs(["a", "draft"]),
		target: {
			kind: "device",
			origin: () => server.server.origin,
			credentials: () => ({ [DEVICE_TOKEN_HEADER]: server.server.deviceToken }),
		},
		env: { TERM: "xterm-256color", HOME: home, AWS_SECRET_ACCESS_KEY: "nope", ...options.env },
		fetchBundle: async () => ({ source: bundle, hash: "test" }),
		terminal: terminal as never,
		mouse: "on",
		...(options.limits ? { limits: options.limits } : {}),
		...(options.clock ? { clock: options.clock } : {}),
		...options.extra,
	});
	return {
		terminal,
		result,
		home,
		async done() {
			terminal.onInput?.("q");
			try {
				return await result;
			} finally {
				rmSync(home, { recursive: true, force: true });
			}
		},
	};
}

/**
 * Wires the launcher to a server: this device's (found through its data directory, or started in its own
 * process) or a remote one signed in as owner or joined as a guest.
 */
import { homedir } from "node:os";
import type { LaunchArgs } from "./host/args.ts";
import { BundleCache, cachedFetch, deviceBundleKey } from "./host/bundle-cache.ts";
import { fetchGuestBundle } from "./host/bundle-fetch.ts";
import { realClock } from "./host/clock.ts";
import { LauncherConfig } from "./host/config.ts";
import { configDir } from "./host/config-dir.ts";
import { askToMakeWay, DeviceServerBusy, startDeviceServer, startingFor } from "./host/device-server.ts";
import { forgetGuestCookie, parseJoinLink } from "./host/join.ts";
import { type LaunchTarget, runLauncher } from "./host/launcher.ts";
import { dataDirProblem, findLocalServer } from "./host/local-server.ts";
import { ENDED_PROMPT, forgetOwnerCookie, signInRemote } from "./host/remote.ts";
import { SignInError } from "./host/sign-in.ts";
import { mark } from "./host/timeline.ts";
import { terminalLine } from "./host/visible-text.ts";
import { type GuestBundleSource, preloadBundle, preloadedBundle } from "./host/worker-spawn.ts";
import { DEVICE_TOKEN_HEADER, type ServerInfo } from "./protocol/server-info.ts";
import { buildId } from "./server/build-id.ts";
import { resolveDataDir } from "./server/store/data-dir.ts";
import { dataDirHolder } from "./server/store/data-dir-lock.ts";

/** How often a launcher waiting for an unresponsive server looks again. */
const HOLDER_POLL_MS = 1000;

/**
 * This device's server: the one running for the data directory, else one started now in its own process (it
 * outlives this terminal, and the next start finds it). A server a launcher of another build started is asked
 * to make way first (it refuses while runs are live, and is used as it is). While the server holding the data
 * directory does not answer (stopped, busy, still starting), the launcher says so once and waits: a second
 * server on the same data would take the first one's live runs for crashed ones.
 */
async function localTarget(): Promise<LaunchTarget> {
	const dataDir = resolveDataDir(process.env);
	let current = { origin: "", token: "" };
	const use = (info: ServerInfo) => {
		current = { origin: info.origin, token: info.deviceToken };
	};
	const connect = async (wait: boolean) => {
		let said = false;
		let asked = false;
		for (;;) {
			const running = await findLocalServer(dataDir);
			if (running?.auto && running.build !== undefined && !asked && running.build !== buildId()) {
				asked = true;
				if (await askToMakeWay(running)) {
					await waitUntilGone(dataDir);
					continue;
				}
			}
			if (running) return use(running);
			try {
				// The holder may be the server this launcher started a moment ago, which is not answering yet.
				if (!startingFor(dataDir) && dataDirHolder(dataDir)) throw new DeviceServerBusy("");
				return use(await startDeviceServer(dataDir, process.env, realClock));
			} catch (error) {
				if (!(error instanceof DeviceServerBusy)) {
					// "EROFS … chmod" names neither the directory nor a way out; say both when the directory is the cause.
					const problem = dataDirProblem(dataDir);
					throw problem ? new Error(problem) : error;
				}
				if (!wait) throw error;
				const holder = dataDirHolder(dataDir);
				if (!said) {
					const who = holder ? `${holder.message} that does not answer` : "another p2 server is starting";
					console.error(`p2: ${who}; waiting for it (Ctrl+C to give up)…`);
				}
				said = true;
				await Bun.sleep(HOLDER_POLL_MS);
			}
		}
	};
	await connect(true);
	return {
		kind: "device",
		origin: () => current.origin,
		credentials: () => ({ [DEVICE_TOKEN_HEADER]: current.token }),
		refresh: () => connect(false),
	};
}

/** Until the server that was asked to make way has let go of the data directory (bounded). */
async function waitUntilGone(dataDir: string): Promise<void> {
	for (let i = 0; i < 200 && (dataDirHolder(dataDir) || (await findLocalServer(dataDir))); i++) {
		await Bun.sleep(HOLDER_POLL_MS / 20);
	}
}

/** Which server a kept bundle is for: this device's (by its data directory), or a remote one by origin. */
function bundleKey(args: LaunchArgs): string | undefined {
	try {
		if (args.join) return new URL(args.join).origin;
		if (args.url && !isThisDevice(args.url)) return new URL(args.url).origin;
	} catch {
		return undefined;
	}
	return deviceBundleKey(resolveDataDir(process.env));
}

export async function launch(args: LaunchArgs): Promise<number> {
	const config = new LauncherConfig(configDir(process.env));
	const bundles = new BundleCache(configDir(process.env));
	const server = bundleKey(args);
	const remote = Boolean(args.join) || Boolean(args.url && !isThisDevice(args.url));
	// This device's server is looked for first: its answer is on the way while the kept bundle is read.
	const local = remote ? undefined : localTarget();
	local?.catch(() => {});
	// The UI the server served last time starts evaluating now; it runs only if the server still serves it. The
	// executable has already handed the prewarmed worker its own bundle, which this device's server serves too.
	const kept = (remote ? undefined : preloadedBundle()) ?? (server ? bundles.read(server) : undefined);
	if (kept) preloadBundle(kept);
	let target: LaunchTarget;
	if (args.join) {
		// The origin comes from the link unless a server was named; then the link must be for that server.
		let origin: string;
		try {
			origin = parseJoinLink(args.join, args.url ? new URL(args.url).origin : undefined).origin;
		} catch (error) {
			if (!(error instanceof SignInError)) throw error;
			console.error(`p2: --join: ${error.message}`);
			return 2;
		}
		const joined = await signInRemote(config, origin, { joinLink: args.join });
		if (!joined) return 1;
		target = joined;
	} else if (args.url && !isThisDevice(args.url)) {
		const signedIn = await signInRemote(config, new URL(args.url).origin, {
			...(args.ownerLink ? { ownerLink: args.ownerLink } : {}),
		});
		if (!signedIn) return 1;
		target = signedIn;
	} else {
		target = await local!;
	}
	mark("server");
	const bundleFetch = (current: LaunchTarget) =>
		cachedFetch(
			bundles,
			server ?? current.origin(),
			(running) => fetchGuestBundle(current.origin(), current.credentials(), running),
			kept,
		);
	// This device's server is not this process': it goes on after the launcher, and ends by itself when idle.
	return runUntilDone(args, config, target, bundleFetch);
}

/** Runs the launcher until the person leaves; a share that ends asks for a new link and runs again. */
async function runUntilDone(
	args: LaunchArgs,
	config: LauncherConfig,
	first: LaunchTarget,
	bundleFetch: (target: LaunchTarget) => (runningHash?: string) => Promise<GuestBundleSource | undefined>,
): Promise<number> {
	let target = first;
	for (;;) {
		const remembered = rememberLastSession(config);
		const result = await runLauncher({
			args,
			target,
			env: process.env,
			...(target.kind === "device" ? { local: { cwd: process.cwd(), home: homedir() } } : {}),
			fetchBundle: bundleFetch(target),
			// A remote server's last session is remembered here; this device's follows pi (the latest in the folder).
			...(target.kind === "owner"
				? {
						lastSession: config.get(target.origin()).lastSession,
						onNavigation: (session: string) => remembered.note(target.origin(), session),
					}
				: {}),
		});
		remembered.flush();
		// pi leaves the transcript and the resume hint on a terminal (already filtered by the launcher).
		if (result.farewell && process.stdout.isTTY) process.stdout.write(result.farewell);
		// The problems hold the worker's and the server's words: shown with their controls made visible.
		if (result.code !== 0 || args.verbose) for (const p of result.problems) console.error(`p2: ${terminalLine(p)}`);
		// The server no longer admits our cookie: say so in the words of the kind we stored, never the worker's.
		if (result.signedOut && target.kind !== "device") {
			const origin = target.origin();
			const guest = target.kind === "guest";
			if (guest) forgetGuestCookie(config, origin);
			else forgetOwnerCookie(config, origin);
			console.log(guest ? "This share has ended." : "Signed out on this device.");
			const again = await signInRemote(config, origin, {
				skipStored: true,
				...(guest ? { prompt: ENDED_PROMPT } : {}),
			});
			if (!again) break;
			target = again;
			continue;
		}
		return result.code;
	}
	return 1;
}

/** `p2 http://127.0.0.1:<port>` is this device's server: it is reached with the device token, not a cookie. */
function isThisDevice(url: string): boolean {
	const { hostname } = new URL(url);
	return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}

/** How often a remote server's last session is written to the launcher's config at most. */
const REMEMBER_MS = 1000;

/**
 * A remote server's last session, kept in the launcher's config: written at most once a second (a UI that
 * navigates in a loop cannot keep the launcher writing its file), and whatever is pending when the run ends.
 */
export function rememberLastSession(config: LauncherConfig) {
	let pending: { origin: string; session: string } | undefined;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const flush = () => {
		if (timer) clearTimeout(timer);
		timer = undefined;
		const next = pending;
		pending = undefined;
		if (next && config.get(next.origin).lastSession !== next.session) {
			config.update(next.origin, (current) => ({ ...current, lastSession: next.session }));
		}
	};
	return {
		note(origin: string, session: string): void {
			pending = { origin, session };
			timer ??= setTimeout(flush, REMEMBER_MS);
		},
		flush,
	};
}

/**
 * Wires the launcher to a server: this device's (found through its data directory, or started here, in this
 * process) or a remote one signed in as owner. The only place that knows both the launcher and the server.
 */
import { homedir } from "node:os";
import type { LaunchArgs } from "./host/args.ts";
import { BundleCache, cachedFetch } from "./host/bundle-cache.ts";
import { fetchGuestBundle } from "./host/bundle-fetch.ts";
import { configDir, LauncherConfig } from "./host/config.ts";
import { forgetGuestCookie, parseJoinLink } from "./host/join.ts";
import { type LaunchTarget, runLauncher } from "./host/launcher.ts";
import { dataDirProblem, findLocalServer } from "./host/local-server.ts";
import { ENDED_PROMPT, forgetOwnerCookie, signInRemote } from "./host/remote.ts";
import { SignInError } from "./host/sign-in.ts";
import { terminalLine } from "./host/visible-text.ts";
import { type GuestBundleSource, preloadBundle } from "./host/worker-spawn.ts";
import { DEVICE_TOKEN_HEADER } from "./protocol/server-info.ts";
import type { P2Server } from "./server/server.ts";
import { resolveDataDir } from "./server/store/data-dir.ts";
import { DataDirBusyError, dataDirHolder } from "./server/store/data-dir-lock.ts";

/** How often a launcher waiting for an unresponsive server looks again. */
const HOLDER_POLL_MS = 1000;

/**
 * The embedded server is loaded only when this device has none running: a second terminal never pays for it.
 * Its bundle is handed to the prewarmed worker at once, so the UI is evaluated while the server starts; the
 * launcher still fetches the bundle from the server and runs it only if the hashes agree.
 */
async function startEmbeddedServer(dataDir: string): Promise<P2Server> {
	// Another server holds the directory (perhaps stopped, or still starting): building the UI would be for nothing.
	const busy = dataDirHolder(dataDir);
	if (busy) throw busy;
	const { defaultGuestBundle } = await import("./server/bundle.ts");
	const build = defaultGuestBundle();
	let first: ReturnType<typeof build> | undefined = build();
	// The executable has already handed its embedded bundle to the worker (main.ts); in development the bundle
	// is built here, and the worker should start on it before the server's modules take the thread.
	await first.then(preloadBundle, () => {});
	const bundle = () => {
		const next = first ?? build();
		first = undefined;
		return next;
	};
	const [{ startServer }, { defaultPlugins }] = await Promise.all([
		import("./server/server.ts"),
		import("./server/plugins.ts"),
	]);
	return startServer({ dataDir, plugins: defaultPlugins(), bundle, advertise: true });
}

async function localTarget(): Promise<{ target: LaunchTarget; stop(): Promise<void> }> {
	const dataDir = resolveDataDir(process.env);
	let embedded: P2Server | undefined;
	let current = { origin: "", token: "" };
	/**
	 * `wait`: when the server that holds the data directory does not answer (stopped, busy, still starting), say
	 * so once and keep trying, rather than start a second server on the same data. A reconnect does not wait.
	 */
	const connect = async (wait: boolean) => {
		for (let said = false; !embedded; ) {
			const running = await findLocalServer(dataDir);
			if (running) {
				current = { origin: running.origin, token: running.deviceToken };
				return;
			}
			try {
				embedded = await startEmbeddedServer(dataDir);
				current = { origin: embedded.origin, token: embedded.deviceToken };
			} catch (error) {
				if (!(error instanceof DataDirBusyError)) {
					// "EROFS … chmod" names neither the directory nor a way out; say both when the directory is the cause.
					const problem = dataDirProblem(dataDir);
					throw problem ? new Error(problem) : error;
				}
				if (!wait) throw error;
				if (!said) console.error(`p2: ${error.message} that does not answer; waiting for it (Ctrl+C to give up)…`);
				said = true;
				await Bun.sleep(HOLDER_POLL_MS);
			}
		}
	};
	await connect(true);
	return {
		target: {
			kind: "device",
			origin: () => current.origin,
			credentials: () => ({ [DEVICE_TOKEN_HEADER]: current.token }),
			refresh: () => connect(false),
		},
		stop: async () => {
			await embedded?.stop();
		},
	};
}

/** Which server a kept bundle is for: this device's (by its data directory), or a remote one by origin. */
function bundleKey(args: LaunchArgs): string | undefined {
	try {
		if (args.join) return new URL(args.join).origin;
		if (args.url && !isThisDevice(args.url)) return new URL(args.url).origin;
	} catch {
		return undefined;
	}
	return `device:${resolveDataDir(process.env)}`;
}

export async function launch(args: LaunchArgs): Promise<number> {
	const config = new LauncherConfig(configDir(process.env));
	const bundles = new BundleCache(configDir(process.env));
	const server = bundleKey(args);
	// The UI the server served last time starts evaluating now; it runs only if the server still serves it.
	const kept = server ? bundles.read(server) : undefined;
	if (kept) preloadBundle(kept);
	let target: LaunchTarget;
	let stop = async () => {};
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
		const local = await localTarget();
		target = local.target;
		stop = local.stop;
	}
	try {
		const bundleFetch = (current: LaunchTarget) =>
			cachedFetch(bundles, server ?? current.origin(), (running) =>
				fetchGuestBundle(current.origin(), current.credentials(), running),
			);
		return await runUntilDone(args, config, target, bundleFetch);
	} finally {
		// Also when the launcher failed (a refused bundle): this process' server ends with it.
		await stop();
	}
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
						onNavigation: (session: string) => {
							const origin = target.origin();
							if (config.get(origin).lastSession !== session) {
								config.update(origin, (current) => ({ ...current, lastSession: session }));
							}
						},
					}
				: {}),
		});
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

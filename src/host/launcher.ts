import { type } from "arktype";
import type { Capabilities, ConnectionState, StartData, TerminalColors, WorkerMessage } from "../protocol/channel.ts";
import { lazy } from "../protocol/lazy.ts";
import { isKeyRelease, ProcessTerminal, parseOscColorResponse, type Terminal } from "../protocol/pi-tui-parts.ts";
import { errorText } from "./actions/context.ts";
import type { LaunchArgs } from "./args.ts";
import { type Clock, realClock } from "./clock.ts";
import { ServerConnection } from "./connection.ts";
import { FilePicker } from "./file-picker.ts";
import { createLauncherActions, KEY_ACTIONS, type KeyAction, splitCommand } from "./launcher-actions.ts";
import { takeLog } from "./launcher-log.ts";
import { LauncherStatus } from "./launcher-status.ts";
import {
	downloadFolder,
	editorCommand,
	preferencePaths,
	readPreferences,
	watchPreferences,
} from "./local-preferences.ts";
import { type MousePolicy, OutputFilter } from "./output-filter.ts";
import { privilegedKeys } from "./privileged-keys.ts";
import { Sandbox, type SandboxLimits, type WorkerEnd } from "./sandbox.ts";
import { SelectionGesture } from "./selection-gesture.ts";
import { TerminalModes } from "./terminal-modes.ts";
import { plainLine, trustedFetch } from "./trusted-http.ts";
import { ConsentScreen } from "./trusted-ui.ts";
import type { GuestBundleSource } from "./worker-spawn.ts";

/** Where the launcher connects, with what credentials (never shown to the worker). */
export interface LaunchTarget {
	readonly kind: "device" | "owner" | "guest";
	origin(): string;
	credentials(): Record<string, string>;
	/** This device's server may have gone away: find it or start it again before reconnecting. */
	refresh?(): Promise<void>;
}

export interface LauncherOptions {
	readonly args: LaunchArgs;
	readonly target: LaunchTarget;
	readonly env: Record<string, string | undefined>;
	/** The server's bundle; given the running one's hash, `undefined` when that is still the one served. */
	fetchBundle(runningHash?: string): Promise<GuestBundleSource | undefined>;
	/** How often the launcher asks for a newer bundle (also after every reconnect). */
	readonly bundleCheckMs?: number;
	readonly terminal?: Terminal & { readonly modifyOtherKeysActive?: boolean };
	readonly mouse?: MousePolicy;
	readonly limits?: Partial<SandboxLimits>;
	/** The session last open on this server, and where to remember the next one (remote servers). */
	readonly lastSession?: string;
	onNavigation?(session: string): void;
	/** Shared with the UI only when the server is this device's (see `StartData.local`). */
	readonly local?: { readonly cwd: string; readonly home: string };
	/** Time for the launcher's screens and limits (a test's clock). */
	readonly clock?: Clock;
	/** How often the launcher keeps the UI's reload snapshot (the draft, the reading position). */
	readonly snapshotMs?: number;
}

export type LauncherResult = { code: number; signedOut?: boolean; problems: string[] };

/** Terminal facts pi-tui reads from the environment; nothing else of the person's environment is shared. */
const SHARED_ENV = ["TERM", "TERM_PROGRAM", "COLORTERM", "TERMINAL_EMULATOR"];
const MULTIPLEXERS = ["TMUX", "ZELLIJ", "STY"];
/** Three Ctrl+C within a second end p2 even when the UI does not answer. */
const EMERGENCY_PRESSES = 3;
const RESTARTS_PER_MINUTE = 3;
const COLOR_QUERY_MS = 100;
const BUNDLE_CHECK_MS = 60_000;
const SNAPSHOT_MS = 2000;
/** How long a reload waits for the UI's snapshot before it starts the new UI from the last one kept. */
const SNAPSHOT_WAIT_MS = 1000;
/** How long the launcher waits for the UI's answer to a question of its own (the text to copy or edit). */
const QUESTION_MS = 2000;
/** Built on the first upload: the launcher's start builds no schema it does not need yet. */
const UploadAnswer = lazy(() =>
	type({ id: "/^[0-9a-f-]{36}$/", name: "string <= 255", size: "number", mimeType: "string <= 100", "+": "delete" }),
);

export function defaultMouse(env: Record<string, string | undefined>): MousePolicy {
	return MULTIPLEXERS.some((name) => env[name] !== undefined) ? "on" : "all";
}

/**
 * The launcher's run: it owns the terminal, the connection and the credentials; it runs the server's UI in a
 * sandboxed worker, relays its frames, filters its output, and puts the terminal back on every way out.
 */
export async function runLauncher(options: LauncherOptions): Promise<LauncherResult> {
	const terminal = options.terminal ?? new ProcessTerminal();
	const clock = options.clock ?? realClock;
	const mouse = options.mouse ?? defaultMouse(options.env);
	const modes = new TerminalModes();
	const status = new LauncherStatus((data) => terminal.write(data));
	const problems: string[] = [];
	const problem = (text: string) => {
		if (problems.length < 200) problems.push(text);
	};

	const prefPaths = preferencePaths(options.env);
	const prefOptions = { noThemes: options.args.noThemes };
	let preferences = readPreferences(prefPaths, prefOptions);
	const first = await options.fetchBundle();
	if (!first) throw new Error("the server sent no UI bundle");
	let bundle = first;
	const releaseLog = takeLog(problem);

	let finish!: (result: LauncherResult) => void;
	const done = new Promise<LauncherResult>((resolve) => {
		finish = resolve;
	});
	let finished = false;
	let connectionState: ConnectionState = "connecting";
	let snapshot: string | undefined;
	let colors: TerminalColors | undefined;
	const restarts: number[] = [];
	const ctrlC: number[] = [];

	interface Active {
		sandbox: Sandbox;
		filter: OutputFilter;
		/** Output held until this worker becomes the one on screen (during a swap). */
		held: string[] | undefined;
		/** The session it last said it shows. */
		session?: string;
	}
	let active: Active | undefined;
	let incoming: Active | undefined;

	const capabilities = (): Capabilities => ({
		kittyProtocol: terminal.kittyProtocolActive,
		modifyOtherKeys: options.terminal?.modifyOtherKeysActive ?? false,
		trueColor: /truecolor|24bit/i.test(options.env.COLORTERM ?? ""),
		platform:
			process.platform === "linux" || process.platform === "darwin" || process.platform === "win32"
				? process.platform
				: "other",
		// pi's rule for its Windows key defaults: Windows, or Linux under WSL.
		windowsKeys:
			process.platform === "win32" ||
			(process.platform === "linux" && Boolean(options.env.WSL_DISTRO_NAME || options.env.WSL_INTEROP)),
	});
	let lastCapabilities = JSON.stringify(capabilities());
	const checkCapabilities = () => {
		const now = capabilities();
		const text = JSON.stringify(now);
		if (text === lastCapabilities) return;
		lastCapabilities = text;
		active?.sandbox.post({ kind: "capabilities", capabilities: now });
	};

	const sharedEnv = (): Record<string, string> => {
		const env: Record<string, string> = {};
		for (const name of SHARED_ENV) {
			const value = options.env[name];
			if (value) env[name] = value.slice(0, 64);
		}
		for (const name of MULTIPLEXERS) if (options.env[name] !== undefined) env[name] = "1";
		return env;
	};

	const startData = (reason: StartData["reason"]): StartData => ({
		origin: options.target.origin(),
		columns: terminal.columns,
		rows: terminal.rows,
		capabilities: capabilities(),
		...(colors ? { terminalColors: colors } : {}),
		env: sharedEnv(),
		mouse,
		...(options.local && options.target.kind === "device" ? { local: { ...options.local } } : {}),
		signedInAs: options.target.kind,
		args: {
			verbose: options.args.verbose,
			draft: options.args.draft,
			...(options.args.session ? { session: options.args.session } : {}),
			...(options.args.fork ? { fork: options.args.fork } : {}),
			continue: options.args.continue,
			resume: options.args.resume,
			...(options.lastSession ? { lastSession: options.lastSession } : {}),
			...(options.args.model ? { model: options.args.model } : {}),
			...(options.args.provider ? { provider: options.args.provider } : {}),
			...(options.args.thinking ? { thinking: options.args.thinking } : {}),
			...(options.args.name ? { name: options.args.name } : {}),
			...(options.args.theme ? { theme: options.args.theme } : {}),
		},
		preferences,
		...(snapshot ? { snapshot } : {}),
		reason,
	});

	const show = (data: string) => {
		if (!finished) terminal.write(data);
	};

	const startWorker = (reason: StartData["reason"], hold: boolean): Active => {
		const worker: Active = {
			filter: new OutputFilter({ mouse, observer: modes }),
			held: hold ? [] : undefined,
		} as Active;
		worker.sandbox = new Sandbox({
			bundle,
			start: startData(reason),
			limits: options.limits,
			onMessage: (message) => {
				// A worker's message never takes the launcher down.
				try {
					onWorkerMessage(worker, message);
				} catch (error) {
					problem(`handling a worker message (${message.kind}): ${errorText(error)}`);
				}
			},
			onProblem: problem,
			onEnd: (why, detail) => onWorkerEnd(worker, why, detail),
		});
		worker.sandbox.post({ kind: "connection", state: connectionState });
		return worker;
	};

	const onWorkerMessage = (worker: Active, message: WorkerMessage) => {
		const current = worker === active;
		switch (message.kind) {
			case "output": {
				const safe = worker.filter.write(message.data);
				// Nothing of the worker's reaches the screen while the launcher's own is up; it redraws after.
				if (consent.active || picker.active || lending) return;
				if (worker.held) worker.held.push(safe);
				else if (current) show(safe);
				return;
			}
			case "frame":
				if (current) connection.send(message.text);
				return;
			case "status":
				if (current) status.apply(message.action);
				return;
			case "snapshot":
				if (current) {
					snapshot = message.data;
					snapshotWaiters.splice(0).forEach((resolve) => resolve());
				}
				return;
			case "ready":
				if (worker === incoming) activate(worker);
				return;
			case "reload":
				if (current) void reload(false);
				return;
			case "exit":
				if (current) end({ code: message.code, problems });
				return;
			case "log":
				if (message.level !== "info") problem(message.text);
				return;
			case "error":
				problem(message.message);
				return;
			case "navigation":
				if (!current || !/^[0-9a-f-]{36}$/.test(message.session)) return;
				// A question asked for one session is not answered for another (seed 3.3, step 6).
				if (consentFor === worker && consentTarget !== message.session) consent.cancel();
				worker.session = message.session;
				options.onNavigation?.(message.session);
				return;
			case "keyContext":
				if (current) suspendPrivileged = message.suspendPrivileged;
				return;
			case "answer":
				if (current) questions.get(message.id)?.(message.text);
				questions.delete(message.id);
				return;
			case "request":
				if (current) void answer(worker, message);
				else worker.sandbox.post({ kind: "response", id: message.id, ok: false, error: "cancelled" });
				return;
			case "pong":
				return;
		}
	};

	const consent = new ConsentScreen(
		(data) => show(data),
		() => ({ columns: terminal.columns, rows: terminal.rows }),
		{ clock },
	);
	const picker = new FilePicker(
		(data) => show(data),
		() => ({ columns: terminal.columns, rows: terminal.rows }),
	);

	/** The worker whose question is on screen: it going away (swap, crash) withdraws the question. */
	let consentFor: Active | undefined;
	let consentTarget: string | undefined;

	let suspendPrivileged = false;
	const gesture = new SelectionGesture();
	/** While the terminal is lent out (the external editor, a suspend), nothing of the worker's reaches it. */
	let lending = false;
	const keyPlatform = () => ({ platform: capabilities().platform, windowsKeys: capabilities().windowsKeys });
	let privileged = privilegedKeys(keyPlatform(), preferences.keybindings, KEY_ACTIONS);
	const questions = new Map<string, (text: string | null) => void>();
	let questionCount = 0;

	const actions = createLauncherActions<Active>({
		consent,
		env: options.env,
		platform: process.platform,
		clock,
		p2Dir: prefPaths.p2Dir,
		origin: () => options.target.origin(),
		current: (worker) => worker === active && !finished,
		post: (worker, message) => worker.sandbox.post(message),
		ask: (worker, question) =>
			new Promise((resolve) => {
				const id = `q${++questionCount}`;
				questions.set(id, resolve);
				worker.sandbox.post({ kind: "ask", id, question });
				setTimeout(() => {
					if (questions.delete(id)) resolve(null);
				}, QUESTION_MS);
			}),
		write: (data) => show(data),
		lend: async (work) => {
			lending = true;
			show(modes.lend() + status.clear());
			terminal.stop();
			try {
				return await work();
			} finally {
				lending = false;
				if (!finished) terminal.start(onInput, onResize);
			}
		},
		redraw: () => {
			if (finished) return;
			show(modes.restore());
			active?.sandbox.post({ kind: "redraw" });
		},
		preferencesChanged: () => watcher.check(),
		editorCommand: () => splitCommand(editorCommand(prefPaths, options.env, process.platform)),
		selectionGesture: () => gesture.take(),
		session: (worker) => worker.session,
		pickFile: (start) => picker.pick(start),
		downloadFolder: () => downloadFolder(prefPaths, options.env),
		download: async (session, id) => {
			const res = await trustedFetch({
				origin: options.target.origin(),
				path: `/download?${new URLSearchParams({ session, id })}`,
				headers: options.target.credentials(),
				timeoutMs: 60_000,
				maxBytes: 25 * 1024 * 1024,
				binary: true,
			});
			if (res.status !== 200) throw new Error(`the server refused the file: ${res.status}`);
			return res.bytes!;
		},
		cwd: process.cwd(),
		upload: async (session, name, bytes) => {
			const query = new URLSearchParams({ session, name: name.slice(0, 255) });
			const res = await trustedFetch({
				origin: options.target.origin(),
				path: `/upload?${query}`,
				method: "POST",
				headers: { ...options.target.credentials(), "content-type": "application/octet-stream" },
				body: bytes,
				timeoutMs: 60_000,
				maxBytes: 8 * 1024,
			});
			if (res.status !== 200) throw new Error(`the server refused the file: ${plainLine(res.body)}`);
			const answer = UploadAnswer(JSON.parse(res.body));
			if (answer instanceof type.errors) throw new Error("the server's answer to the upload is not valid");
			return answer;
		},
		...(options.target.kind === "owner"
			? {
					signOut: async (all: boolean) => {
						const res = await trustedFetch({
							origin: options.target.origin(),
							path: all ? "/owner/logout-all" : "/owner/logout",
							method: "POST",
							headers: options.target.credentials(),
						});
						if (res.status !== 200) throw new Error(`the server answered ${res.status}: ${plainLine(res.body)}`);
					},
				}
			: {}),
		problem,
	});

	/** A worker's request for a launcher action; a question on screen is withdrawn if its worker goes away. */
	const answer = async (worker: Active, message: Extract<WorkerMessage, { kind: "request" }>) => {
		consentFor = worker;
		consentTarget = worker.session;
		try {
			await actions.onRequest(worker, message);
		} catch (error) {
			problem(`request ${message.action}: ${errorText(error)}`);
		} finally {
			if (consentFor === worker) consentFor = undefined;
		}
	};

	const onWorkerEnd = (worker: Active, why: WorkerEnd, detail: string) => {
		if (worker === consentFor) {
			consent.cancel();
			picker.cancel();
		}
		if (finished || why === "exited" || why === "terminated") return;
		problem(`the UI worker ended (${why}: ${detail})`);
		if (worker === incoming) {
			incoming = undefined;
			return;
		}
		if (worker !== active) return;
		const now = Date.now();
		restarts.push(now);
		while (restarts.length && now - restarts[0]! > 60_000) restarts.shift();
		if (restarts.length > RESTARTS_PER_MINUTE) {
			return end({ code: 1, problems: [...problems, "the UI kept failing; p2 stopped it"] });
		}
		show(modes.cleanup() + status.clear());
		suspendPrivileged = false;
		// As for a swap: the old worker's objects must not linger on the server under handles the new one reuses.
		connection.reconnect();
		active = startWorker("restart", false);
	};

	/** Makes a started worker the one on screen, then retires the old one. */
	const activate = (worker: Active) => {
		const old = active;
		if (old && old === consentFor) {
			consent.cancel();
			picker.cancel();
		}
		suspendPrivileged = false;
		incoming = undefined;
		active = worker;
		old?.sandbox.terminate();
		show(modes.cleanup() + status.clear());
		for (const chunk of worker.held ?? []) show(chunk);
		worker.held = undefined;
		// The old worker's objects must not linger on the server under handles the new one will reuse.
		connection.reconnect();
	};

	const snapshotWaiters: (() => void)[] = [];
	/** Asks the UI on screen for its snapshot and waits for it (a worker that does not answer keeps the last). */
	const freshSnapshot = () =>
		new Promise<void>((resolve) => {
			if (!active) return resolve();
			snapshotWaiters.push(resolve);
			active.sandbox.post({ kind: "snapshotRequest" });
			clock.setTimeout(resolve, SNAPSHOT_WAIT_MS);
		});

	/** Swaps in a new worker on the server's current bundle (`/reload`), or on a newer one the server serves. */
	const reload = async (onlyIfNewer: boolean) => {
		if (incoming || finished) return;
		try {
			const next = await options.fetchBundle(onlyIfNewer ? bundle.hash : undefined);
			if (!next || (onlyIfNewer && next.hash === bundle.hash) || finished || incoming) return;
			bundle = next;
		} catch (error) {
			if (!onlyIfNewer) problem(`reload: ${(error as Error).message}`);
			return;
		}
		// The successor starts from the person's work as it is now: the draft and the reading position.
		await freshSnapshot();
		if (finished || incoming) return;
		incoming = startWorker("reload", true);
	};

	let everOpen = false;
	const connection = new ServerConnection({
		origin: () => options.target.origin(),
		credentials: () => options.target.credentials(),
		onFrame: (text) => active?.sandbox.post({ kind: "frame", text }),
		onState: (state) => {
			// After a reconnect the server may be a newer one, with a newer UI.
			if (state === "open" && connectionState !== "open" && everOpen) void reload(true);
			if (state === "open") everOpen = true;
			connectionState = state;
			active?.sandbox.post({ kind: "connection", state });
		},
		onSignedOut: () => end({ code: 1, signedOut: true, problems }),
		beforeReconnect: options.target.refresh,
	});

	// A changed file reaches the running UI at once: a remapped key works without a restart.
	const watcher = watchPreferences(prefPaths, prefOptions, preferences, (next) => {
		preferences = next;
		privileged = privilegedKeys(keyPlatform(), next.keybindings, KEY_ACTIONS);
		active?.sandbox.post({ kind: "preferences", preferences: next });
		incoming?.sandbox.post({ kind: "preferences", preferences: next });
	});

	const bundleTimer = setInterval(() => void reload(true), options.bundleCheckMs ?? BUNDLE_CHECK_MS);

	let colorReplies: string[] | undefined = [];
	const end = (result: LauncherResult) => {
		if (finished) return;
		terminal.write(modes.cleanup() + status.clear());
		finished = true;
		clearInterval(snapshotTimer);
		clearInterval(bundleTimer);
		watcher.stop();
		consent.cancel();
		picker.cancel();
		incoming?.sandbox.terminate();
		active?.sandbox.terminate();
		connection.close();
		terminal.stop();
		process.off("exit", onProcessExit);
		releaseLog();
		finish(result);
	};
	const onProcessExit = () => {
		if (!finished) process.stdout.write(modes.cleanup());
	};
	process.on("exit", onProcessExit);

	const onInput = (data: string) => {
		if (colorReplies && takeColorReply(data)) return;
		if (lending) return;
		// Three Ctrl+C within a second end p2 wherever the keys go: the UI, or a screen of the launcher's own.
		if (data === "\x03") {
			const now = clock.now();
			ctrlC.push(now);
			while (ctrlC.length && now - ctrlC[0]! > 1000) ctrlC.shift();
			if (ctrlC.length >= EMERGENCY_PRESSES) return end({ code: 130, problems });
		}
		if (consent.active) return consent.input(data);
		if (picker.active) return picker.input(data);
		consent.noteInput();
		if (mouse !== "off") gesture.observe(data);
		// The launcher's own keys, from the person's own files, never reach the worker (seed 3.1, "K").
		const action = active && !suspendPrivileged ? privileged.match(data) : undefined;
		if (action && active) {
			if (!isKeyRelease(data)) void actions.onKey(active, action as KeyAction);
			return;
		}
		checkCapabilities();
		active?.sandbox.post({ kind: "input", data });
	};

	function onResize() {
		consent.draw();
		picker.draw();
		active?.sandbox.post({ kind: "resize", columns: terminal.columns, rows: terminal.rows });
		incoming?.sandbox.post({ kind: "resize", columns: terminal.columns, rows: terminal.rows });
	}

	const takeColorReply = (data: string): boolean => {
		if (data.startsWith("\x1b]1") || data.startsWith("\x1b]4;")) {
			colorReplies?.push(data);
			return true;
		}
		if (/^\x1b\[\?[0-9;]*c$/.test(data)) {
			finishColorQuery();
			return true;
		}
		return false;
	};
	const finishColorQuery = () => {
		const replies = colorReplies;
		if (!replies) return;
		colorReplies = undefined;
		const found: TerminalColors = {};
		for (const reply of replies) {
			const parsed = parseOscColorResponse(reply);
			if (!parsed?.rgb) continue;
			if (parsed.target === "foreground") found.foreground = parsed.rgb;
			else if (parsed.target === "background") found.background = parsed.rgb;
		}
		if (found.foreground || found.background) {
			colors = found;
			active?.sandbox.post({ kind: "terminalColors", colors: found });
		}
	};

	terminal.start(onInput, onResize);
	// The launcher asks the terminal for its colors itself (the worker's queries are filtered out).
	terminal.write("\x1b]10;?\x07\x1b]11;?\x07\x1b[c");
	setTimeout(finishColorQuery, COLOR_QUERY_MS);
	// Kitty negotiation finishes after start: tell the worker when it does.
	for (const ms of [50, 150, 400, 1000]) setTimeout(checkCapabilities, ms);

	active = startWorker("start", false);
	connection.connect();
	const snapshotTimer = setInterval(
		() => active?.sandbox.post({ kind: "snapshotRequest" }),
		options.snapshotMs ?? SNAPSHOT_MS,
	);

	for (const signal of ["SIGTERM", "SIGHUP"] as const) {
		process.once(signal, () => end({ code: 128 + (signal === "SIGTERM" ? 15 : 1), problems }));
	}
	return done;
}

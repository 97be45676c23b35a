/**
 * The launcher's run: it owns the terminal, the connection and the credentials; it runs the server's UI in a
 * sandboxed worker, relays its frames, filters its output, and puts the terminal back on every way out. This
 * file wires the parts together: the worker supervisor, the input router, the terminal probe, the launcher's
 * screens and actions, and the server connection.
 */

import type { ConnectionState, StartData, WorkerMessage } from "../protocol/channel.ts";
import { errorText } from "../protocol/errors.ts";
import { closeForwards } from "./actions/forward.ts";
import type { LaunchArgs } from "./args.ts";
import { keepBackgroundThreadsLow } from "./background-threads.ts";
import { type Clock, realClock } from "./clock.ts";
import { ServerConnection, type ServerFault } from "./connection.ts";
import { exitTranscript, resumeHint } from "./exit-output.ts";
import { FilePicker } from "./file-picker.ts";
import { createInputRouter } from "./input-router.ts";
import type { LaunchTarget } from "./launch-target.ts";
import { createLauncherActions, KEY_ACTIONS, splitCommand } from "./launcher-actions.ts";
import { takeLog } from "./launcher-log.ts";
import { LauncherStatus } from "./launcher-status.ts";
import {
	downloadFolder,
	editorCommand,
	preferencePaths,
	readPreferences,
	watchPreferences,
} from "./local-preferences.ts";
import type { MousePolicy } from "./output-filter.ts";
import { OutputPacing } from "./output-pacing.ts";
import { ProcessTerminal, type Terminal } from "./pi-tui-terminal.ts";
import { privilegedKeys } from "./privileged-keys.ts";
import { DEFAULT_LIMITS, type SandboxLimits } from "./sandbox.ts";
import { SelectionGesture } from "./selection-gesture.ts";
import { serverHttp } from "./server-http.ts";
import { TerminalModes } from "./terminal-modes.ts";
import { TerminalOutput, type TerminalSink, ttySink } from "./terminal-output.ts";
import { defaultMouse, sharedEnv, TerminalProbe } from "./terminal-probe.ts";
import { mark } from "./timeline.ts";
import { ConsentScreen } from "./trusted-ui.ts";
import type { GuestBundleSource } from "./worker-spawn.ts";
import { type GuestWorker, WorkerSupervisor } from "./worker-supervisor.ts";

export type { LaunchTarget } from "./launch-target.ts";
export { defaultMouse } from "./terminal-probe.ts";

export interface LauncherOptions {
	readonly args: LaunchArgs;
	readonly target: LaunchTarget;
	readonly env: Record<string, string | undefined>;
	/** The server's bundle; given the running one's hash, `undefined` when that is still the one served. */
	fetchBundle(runningHash?: string): Promise<GuestBundleSource | undefined>;
	/** How often the launcher asks for a newer bundle (also after every reconnect). */
	readonly bundleCheckMs?: number;
	readonly terminal?: Terminal & { readonly modifyOtherKeysActive?: boolean };
	/** How the terminal is written to: the process' own output, or `terminal.write` for a given terminal. */
	readonly terminalSink?: TerminalSink;
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

/**
 * How the run ended. `farewell`: what to print on the normal screen once the terminal is back, when the UI
 * exited itself (its transcript and the resume hint, filtered), for a terminal only.
 */
export type LauncherResult = { code: number; signedOut?: boolean; problems: string[]; farewell?: string };

const COLOR_QUERY_MS = 100;
const BUNDLE_CHECK_MS = 60_000;
const SNAPSHOT_MS = 2000;
/** How long the launcher waits for the UI's answer to a question of its own (the text to copy or edit). */
const QUESTION_MS = 2000;
/** When kitty keyboard negotiation may have finished after start: the UI is told if it did. */
const CAPABILITY_CHECKS_MS = [50, 150, 400, 1000];
const SESSION_ID = /^[0-9a-f-]{36}$/;
/** How long a leaving launcher waits for the terminal to take the piece in flight and the reset after it. */
const LEAVING_MS = 300;

export async function runLauncher(options: LauncherOptions): Promise<LauncherResult> {
	const terminal = options.terminal ?? new ProcessTerminal();
	const output = new TerminalOutput(
		options.terminalSink ??
			(options.terminal
				? (data, done) => {
						terminal.write(data);
						done();
					}
				: ttySink(process.stdout.fd)),
	);
	const clock = options.clock ?? realClock;
	const mouse = options.mouse ?? defaultMouse(options.env);
	const modes = new TerminalModes();
	const status = new LauncherStatus((data) => output.write(data));
	const probe = new TerminalProbe(terminal, options.env);
	const problems: string[] = [];
	const problem = (text: string) => {
		if (problems.length < 200) problems.push(text);
	};

	const prefPaths = preferencePaths(options.env);
	const prefOptions = { noThemes: options.args.noThemes };
	let preferences = readPreferences(prefPaths, prefOptions);
	const bundle = await options.fetchBundle();
	if (!bundle) throw new Error("the server sent no UI bundle");
	mark("bundle");
	const releaseLog = takeLog(problem);

	let finish!: (result: LauncherResult) => void;
	const done = new Promise<LauncherResult>((resolve) => {
		finish = resolve;
	});
	let finished = false;
	let stopLowering: (() => void) | undefined;
	let connectionState: ConnectionState = "connecting";
	/** While the UI's own text input needs every key (a search, a dialog), the launcher takes none. */
	let suspendPrivileged = false;
	/** While the terminal is lent out (the external editor, a suspend), nothing of the worker's reaches it. */
	let lending = false;
	const keyPlatform = () => {
		const { platform, windowsKeys } = probe.capabilities();
		return { platform, windowsKeys };
	};
	let privileged = privilegedKeys(keyPlatform(), preferences.keybindings, KEY_ACTIONS);

	const show = (data: string) => {
		if (!finished) output.write(data);
	};
	const size = () => ({ columns: terminal.columns, rows: terminal.rows });
	const consent = new ConsentScreen(show, size, { clock });
	const picker = new FilePicker(show, size);
	const uiOnScreen = () => !consent.active && !picker.active && !lending && !finished;
	const pacing = new OutputPacing({
		output,
		outputCharsPerSecond: options.limits?.outputCharsPerSecond ?? DEFAULT_LIMITS.outputCharsPerSecond,
		notify: (notice) => consent.notify(notice),
		uiOnScreen,
		redraw: () => redraw(),
	});
	/** The worker whose question is on screen, and the session it was asked for. */
	let asking: { worker: GuestWorker; session: string | undefined } | undefined;

	const startData = (reason: StartData["reason"], snapshot: string | undefined): StartData => {
		const args = options.args;
		return {
			origin: options.target.origin(),
			columns: terminal.columns,
			rows: terminal.rows,
			capabilities: probe.capabilities(),
			...(probe.colors ? { terminalColors: probe.colors } : {}),
			env: sharedEnv(options.env),
			mouse,
			...(options.local && options.target.kind === "device" ? { local: { ...options.local } } : {}),
			signedInAs: options.target.kind,
			args: {
				verbose: args.verbose,
				draft: args.draft,
				...(args.files.length ? { files: args.files } : {}),
				...(args.models ? { models: args.models } : {}),
				...(args.session ? { session: args.session } : {}),
				...(args.fork ? { fork: args.fork } : {}),
				continue: args.continue,
				resume: args.resume,
				...(options.lastSession ? { lastSession: options.lastSession } : {}),
				...(args.model ? { model: args.model } : {}),
				...(args.provider ? { provider: args.provider } : {}),
				...(args.thinking ? { thinking: args.thinking } : {}),
				...(args.name ? { name: args.name } : {}),
				...(args.theme ? { theme: args.theme } : {}),
			},
			preferences,
			...(snapshot ? { snapshot } : {}),
			reason,
		};
	};

	const workers = new WorkerSupervisor({
		bundle,
		fetchBundle: options.fetchBundle,
		startData,
		connectionState: () => connectionState,
		...(options.limits ? { limits: options.limits } : {}),
		mouse,
		modes,
		clock,
		// Nothing of the worker's reaches the screen while the launcher's own is up; it redraws after.
		show: (data) => {
			if (uiOnScreen()) pacing.show(data);
		},
		outputDropped: () => pacing.overBudget(),
		onMessage: (worker, message, current) => onWorkerMessage(worker, message, current),
		onGone: (worker) => {
			if (asking?.worker !== worker) return;
			consent.cancel();
			picker.cancel();
		},
		onReplaced: () => {
			suspendPrivileged = false;
			show(modes.cleanup() + status.clear());
			// The old worker's objects must not linger on the server under handles the new one will reuse.
			connection.reconnect();
		},
		onGiveUp: () => end({ code: 1, problems }),
		problem,
	});

	/** The UI draws its whole screen again, on a terminal whose modes are as it last set them. */
	function redraw(): void {
		if (finished) return;
		show(modes.restore());
		workers.post({ kind: "redraw" });
	}

	/** The server broke the protocol (a frame too large): told once a run; the connection waits longer each time. */
	let toldFault = false;
	const serverFault = (fault: ServerFault) => {
		problem(fault.text);
		if (toldFault || finished) return;
		toldFault = true;
		void consent
			.notify({
				title: "The server sent more than p2 accepts",
				lines: [
					fault.text,
					`p2 closed the connection and connects again in ${Math.round(fault.retryMs / 1000)} s, waiting longer each time this happens. A server that keeps doing so is broken or hostile.`,
				],
			})
			.then(redraw);
	};

	const questions = new Map<string, (text: string | null) => void>();
	let questionCount = 0;
	/** The UI's last words before it exits (pi's fullscreenExitOutput), and the session it showed. */
	let exitOutput: { text: string; resumable: boolean; session: string | undefined } | undefined;
	const farewell = (): string => {
		if (!exitOutput) return "";
		const { text, resumable, session } = exitOutput;
		return exitTranscript(text) + (resumable && session ? resumeHint(options.target, session) : "");
	};

	const onWorkerMessage = (worker: GuestWorker, message: WorkerMessage, current: boolean) => {
		switch (message.kind) {
			case "frame":
				if (current) connection.send(message.text);
				return;
			case "status":
				if (current) status.apply(message.action);
				return;
			case "exitOutput":
				if (current) exitOutput = { text: message.text, resumable: message.resumable, session: worker.session };
				return;
			case "exit": {
				if (!current) return;
				const words = farewell();
				end({ code: message.code, problems, ...(words ? { farewell: words } : {}) });
				return;
			}
			case "log":
				if (message.level !== "info") problem(message.text);
				return;
			case "error":
				problem(message.message);
				return;
			case "navigation":
				if (!current || !SESSION_ID.test(message.session)) return;
				mark("session open");
				// A question asked for one session is not answered for another (seed 3.3, step 6).
				if (asking?.worker === worker && asking.session !== message.session) consent.cancel();
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
				if (current) void answerRequest(worker, message);
				else worker.sandbox.post({ kind: "response", id: message.id, ok: false, error: "cancelled" });
				return;
		}
	};

	const http = serverHttp(options.target);
	const gesture = new SelectionGesture();
	const actions = createLauncherActions<GuestWorker>({
		consent,
		env: options.env,
		platform: process.platform,
		clock,
		p2Dir: prefPaths.p2Dir,
		cwd: process.cwd(),
		origin: () => options.target.origin(),
		current: (worker) => workers.isCurrent(worker) && !finished,
		post: (worker, message) => worker.sandbox.post(message),
		ask: (worker, question) =>
			new Promise((resolve) => {
				const id = `q${++questionCount}`;
				questions.set(id, resolve);
				worker.sandbox.post({ kind: "ask", id, question });
				clock.setTimeout(() => {
					if (questions.delete(id)) resolve(null);
				}, QUESTION_MS);
			}),
		write: show,
		lend: async (work) => {
			lending = true;
			show(modes.lend() + status.clear());
			await output.idle();
			terminal.stop();
			try {
				return await work();
			} finally {
				lending = false;
				if (!finished) terminal.start(onInput, onResize);
			}
		},
		redraw: () => redraw(),
		preferencesChanged: () => watcher.check(),
		editorCommand: () => splitCommand(editorCommand(prefPaths, options.env, process.platform)),
		selectionGesture: () => gesture.take(),
		session: (worker) => worker.session,
		pickFile: (start) => picker.pick(start),
		downloadFolder: () => downloadFolder(prefPaths, options.env),
		download: http.download,
		downloadArtifact: http.downloadArtifact,
		upload: http.upload,
		...(http.signOut ? { signOut: http.signOut } : {}),
		openRelay: (path) =>
			new WebSocket(`${options.target.origin().replace(/^http/, "ws")}${path}`, {
				headers: { origin: options.target.origin(), ...options.target.credentials() },
			} as unknown as string[]),
		problem,
	});

	/** A worker's request for a launcher action; a question on screen is withdrawn if its worker goes away. */
	const answerRequest = async (worker: GuestWorker, message: Extract<WorkerMessage, { kind: "request" }>) => {
		asking = { worker, session: worker.session };
		try {
			await actions.onRequest(worker, message);
		} catch (error) {
			problem(`request ${message.action}: ${errorText(error)}`);
		} finally {
			if (asking?.worker === worker) asking = undefined;
		}
	};

	let everOpen = false;
	const connection = new ServerConnection({
		origin: () => options.target.origin(),
		credentials: () => options.target.credentials(),
		onFrame: (text) => workers.post({ kind: "frame", text }),
		onState: (state) => {
			if (state === "open") mark("connected");
			// After a reconnect the server may be a newer one, with a newer UI.
			if (state === "open" && connectionState !== "open" && everOpen) void workers.reload(true);
			if (state === "open") everOpen = true;
			connectionState = state;
			workers.post({ kind: "connection", state });
		},
		onSignedOut: () => end({ code: 1, signedOut: true, problems }),
		onFault: serverFault,
		beforeReconnect: options.target.refresh,
	});

	// A changed file reaches the running UI at once: a remapped key works without a restart.
	const watcher = watchPreferences(prefPaths, prefOptions, preferences, (next) => {
		preferences = next;
		privileged = privilegedKeys(keyPlatform(), next.keybindings, KEY_ACTIONS);
		workers.postAll({ kind: "preferences", preferences: next });
	});

	const checkCapabilities = () => {
		const changed = probe.changed();
		if (changed) workers.post({ kind: "capabilities", capabilities: changed });
	};

	const onInput = createInputRouter({
		clock,
		takeReply: (data) => probe.takeReply(data),
		lending: () => lending,
		screens: [consent, picker],
		observe: (data) => {
			consent.noteInput();
			if (mouse !== "off") gesture.observe(data);
		},
		privilegedKey: (data) => (workers.active && !suspendPrivileged ? privileged.match(data) : undefined),
		onKey: (action) => {
			const worker = workers.active;
			if (worker) void actions.onKey(worker, action);
		},
		forward: (data) => {
			checkCapabilities();
			workers.post({ kind: "input", data });
			// From the first key on (not during start-up, when the compilers speed the first frame).
			stopLowering ??= keepBackgroundThreadsLow();
		},
		emergencyExit: () => end({ code: 130, problems }),
	});

	function onResize() {
		consent.draw();
		picker.draw();
		workers.postAll({ kind: "resize", columns: terminal.columns, rows: terminal.rows });
	}

	const timers: ReturnType<typeof setInterval>[] = [];
	const end = (result: LauncherResult) => {
		if (finished) return;
		// What still waits for a slow terminal is dropped: the reset goes out right after the piece in flight.
		output.discard();
		output.write(modes.cleanup() + status.clear());
		finished = true;
		for (const timer of timers) clearInterval(timer);
		stopLowering?.();
		watcher.stop();
		consent.cancel();
		picker.cancel();
		workers.stop();
		closeForwards();
		connection.close();
		process.off("exit", onProcessExit);
		releaseLog();
		// pi-tui's terminal writes its own resets itself, synchronously: after the launcher's, never before.
		let left = false;
		const leave = () => {
			if (left) return;
			left = true;
			clearTimeout(waiting);
			terminal.stop();
			finish(result);
		};
		// A terminal that takes nothing at all does not keep p2 from ending.
		const waiting = setTimeout(leave, LEAVING_MS);
		void output.idle().then(leave);
	};
	const onProcessExit = () => {
		if (!finished) process.stdout.write(modes.cleanup());
	};
	process.on("exit", onProcessExit);

	terminal.start(onInput, onResize);
	// The launcher asks the terminal for its colors itself (the worker's queries are filtered out).
	output.write(probe.askColors((colors) => workers.post({ kind: "terminalColors", colors })));
	setTimeout(() => probe.finishColors(), COLOR_QUERY_MS);
	for (const ms of CAPABILITY_CHECKS_MS) setTimeout(checkCapabilities, ms);

	workers.start();
	connection.connect();
	timers.push(
		setInterval(() => workers.post({ kind: "snapshotRequest" }), options.snapshotMs ?? SNAPSHOT_MS),
		setInterval(() => void workers.reload(true), options.bundleCheckMs ?? BUNDLE_CHECK_MS),
	);

	for (const signal of ["SIGTERM", "SIGHUP"] as const) {
		process.once(signal, () => end({ code: 128 + (signal === "SIGTERM" ? 15 : 1), problems }));
	}
	return done;
}

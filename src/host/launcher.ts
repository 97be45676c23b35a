/**
 * The launcher's run: it owns the terminal, the connection and the credentials; it runs the server's UI in a
 * sandboxed worker, relays its frames, filters its output, and puts the terminal back on every way out. The
 * `Launcher` wires the parts together (the worker supervisor, the input router, the terminal probe, the
 * launcher's screens and actions, the server connection) and holds the run's phase: running, lending the
 * terminal out (the external editor, a suspend), or left.
 */

import type { ConnectionState, WorkerMessage } from "../protocol/channel.ts";
import { errorText } from "../protocol/errors.ts";
import type { Preferences } from "../protocol/preferences.ts";
import { closeForwards } from "./actions/forward.ts";
import type { LaunchArgs } from "./args.ts";
import { keepBackgroundThreadsLow } from "./background-threads.ts";
import { type Clock, realClock } from "./clock.ts";
import { ServerConnection, type ServerFault } from "./connection.ts";
import { exitTranscript, resumeHint } from "./exit-output.ts";
import { FilePicker } from "./file-picker.ts";
import { ImagePainter } from "./images/image-painter.ts";
import { createInputRouter } from "./input-router.ts";
import type { LaunchTarget } from "./launch-target.ts";
import { createLauncherActions, KEY_ACTIONS, type KeyAction, splitCommand } from "./launcher-actions.ts";
import { takeLog } from "./launcher-log.ts";
import { LauncherStatus } from "./launcher-status.ts";
import {
	downloadFolder,
	editorCommand,
	type PreferencePaths,
	preferencePaths,
	readPreferences,
	watchPreferences,
} from "./local-preferences.ts";
import type { MousePolicy } from "./output-filter.ts";
import { OutputPacing } from "./output-pacing.ts";
import { ProcessTerminal, type Terminal } from "./pi-tui-terminal.ts";
import { type PrivilegedKeys, privilegedKeys } from "./privileged-keys.ts";
import { DEFAULT_LIMITS, type SandboxLimits } from "./sandbox.ts";
import { SelectionGesture } from "./selection-gesture.ts";
import { serverHttp } from "./server-http.ts";
import { startDataOf } from "./start-data.ts";
import { tmuxForwardsLinks } from "./terminal-capabilities.ts";
import { TerminalModes } from "./terminal-modes.ts";
import { TerminalOutput, type TerminalSink, ttySink } from "./terminal-output.ts";
import { defaultMouse, SCHEME_REPORTS_OFF, SCHEME_REPORTS_ON, TerminalProbe } from "./terminal-probe.ts";
import { mark } from "./timeline.ts";
import { ConsentScreen } from "./trusted-ui.ts";
import { UiQuestions } from "./ui-questions.ts";
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

const BUNDLE_CHECK_MS = 60_000;
const SNAPSHOT_MS = 2000;
/** When kitty keyboard negotiation may have finished after start: the UI is told if it did. */
const CAPABILITY_CHECKS_MS = [50, 150, 400, 1000];
const SESSION_ID = /^[0-9a-f-]{36}$/;
/** How long a leaving launcher waits for the terminal to take the piece in flight and the reset after it. */
const LEAVING_MS = 300;

export async function runLauncher(options: LauncherOptions): Promise<LauncherResult> {
	const prefPaths = preferencePaths(options.env);
	const preferences = readPreferences(prefPaths, { noThemes: options.args.noThemes });
	const bundle = await options.fetchBundle();
	if (!bundle) throw new Error("the server sent no UI bundle");
	mark("bundle");
	return new Launcher(options, bundle, prefPaths, preferences).run();
}

/**
 * Where the run is. `running`: the UI's screen and keys; `lending`: the terminal is another program's (the
 * external editor, a suspend) and nothing of the worker's reaches it; `left`: the terminal is being put back.
 */
type Phase = "running" | "lending" | "left";

/** The UI's last words before it exits (pi's fullscreenExitOutput), and the session it showed. */
interface ExitOutput {
	readonly text: string;
	readonly resumable: boolean;
	readonly session: string | undefined;
}

class Launcher {
	readonly #options: LauncherOptions;
	readonly #terminal: Terminal & { readonly modifyOtherKeysActive?: boolean };
	readonly #output: TerminalOutput;
	readonly #clock: Clock;
	readonly #mouse: MousePolicy;
	readonly #modes = new TerminalModes();
	readonly #status: LauncherStatus;
	readonly #probe: TerminalProbe;
	readonly #problems: string[] = [];
	readonly #prefPaths: PreferencePaths;
	readonly #consent: ConsentScreen;
	readonly #picker: FilePicker;
	readonly #pacing: OutputPacing;
	readonly #images: ImagePainter;
	readonly #workers: WorkerSupervisor;
	readonly #questions: UiQuestions;
	readonly #gesture = new SelectionGesture();
	readonly #actions: ReturnType<typeof createLauncherActions<GuestWorker>>;
	readonly #connection: ServerConnection;
	readonly #watcher: ReturnType<typeof watchPreferences>;
	readonly #onInput: (data: string) => void;
	readonly #releaseLog: () => void;
	readonly #timers: ReturnType<typeof setInterval>[] = [];
	readonly #done = Promise.withResolvers<LauncherResult>();

	#phase: Phase = "running";
	#preferences: Preferences;
	/** The launcher's own keys, from the person's keybindings. */
	#privileged: PrivilegedKeys<KeyAction>;
	/** While the UI's own text input needs every key (a search, a dialog), the launcher takes none. */
	#suspendPrivileged = false;
	#connectionState: ConnectionState = "connecting";
	#everOpen = false;
	/** The worker whose question is on screen, and the session it was asked for. */
	#asking: { worker: GuestWorker; session: string | undefined } | undefined;
	#exitOutput: ExitOutput | undefined;
	#stopLowering: (() => void) | undefined;
	#toldFault = false;
	/** The terminal shows hyperlinks (the filter passes those that show their own address). */
	#hyperlinks: boolean;

	constructor(
		options: LauncherOptions,
		bundle: GuestBundleSource,
		prefPaths: PreferencePaths,
		preferences: Preferences,
	) {
		this.#options = options;
		const terminal = options.terminal ?? new ProcessTerminal();
		this.#terminal = terminal;
		this.#output = new TerminalOutput(
			options.terminalSink ??
				(options.terminal
					? (data, done) => {
							terminal.write(data);
							done();
						}
					: ttySink(process.stdout.fd)),
		);
		this.#clock = options.clock ?? realClock;
		this.#mouse = options.mouse ?? defaultMouse(options.env);
		this.#status = new LauncherStatus((data) => this.#output.write(data));
		this.#prefPaths = prefPaths;
		this.#preferences = preferences;
		this.#probe = new TerminalProbe(terminal, options.env, () => this.#preferences.settings);
		this.#hyperlinks = this.#probe.capabilities().hyperlinks === true;
		this.#releaseLog = takeLog((text) => this.#problem(text));
		this.#privileged = privilegedKeys(this.#keyPlatform(), preferences.keybindings, KEY_ACTIONS);

		const show = (data: string) => this.#show(data);
		const size = () => ({ columns: terminal.columns, rows: terminal.rows });
		this.#images = new ImagePainter({
			protocol: () => this.#probe.capabilities().images,
			size,
			onScreen: () => this.#uiOnScreen(),
			write: show,
			problem: (text) => this.#problem(text),
			refused: (id, reason) => this.#workers.post({ kind: "imageRefused", id, reason }),
		});
		// The launcher's own screens cover the UI's: its images leave first.
		const showOwnScreen = (data: string) => {
			this.#images.hide();
			this.#show(data);
		};
		this.#consent = new ConsentScreen(showOwnScreen, size, { clock: this.#clock });
		this.#picker = new FilePicker(showOwnScreen, size);
		this.#pacing = new OutputPacing({
			output: this.#output,
			outputCharsPerSecond: options.limits?.outputCharsPerSecond ?? DEFAULT_LIMITS.outputCharsPerSecond,
			notify: (notice) => this.#consent.notify(notice),
			uiOnScreen: () => this.#uiOnScreen(),
			redraw: () => this.#redraw(),
		});
		this.#questions = new UiQuestions(this.#clock);
		this.#workers = this.#createWorkers(bundle);
		this.#actions = this.#createActions();
		this.#connection = this.#createConnection();
		// A changed file reaches the running UI at once: a remapped key works without a restart.
		this.#watcher = watchPreferences(prefPaths, { noThemes: options.args.noThemes }, preferences, (next) => {
			this.#preferences = next;
			this.#privileged = privilegedKeys(this.#keyPlatform(), next.keybindings, KEY_ACTIONS);
			this.#workers.postAll({ kind: "preferences", preferences: next });
			// `terminal.trueColor`, `terminal.hyperlinks` and `terminal.images` are the terminal's facts, decided here.
			this.#checkCapabilities();
		});
		this.#onInput = this.#createInputRouter();
	}

	run(): Promise<LauncherResult> {
		const terminal = this.#terminal;
		process.on("exit", this.#onProcessExit);
		terminal.start(this.#onInput, this.#onResize);
		// The launcher asks the terminal for its colors itself (the worker's queries are filtered out), and again
		// whenever the terminal reports a new light/dark scheme.
		this.#probe.start({ write: (data) => this.#show(data), later: (run, ms) => setTimeout(run, ms) }, (colors) =>
			this.#workers.postAll({ kind: "terminalColors", colors }),
		);
		for (const ms of CAPABILITY_CHECKS_MS) setTimeout(() => this.#checkCapabilities(), ms);
		// Under tmux, hyperlinks reach the terminal only if tmux forwards them: tmux is asked, as pi-tui does.
		void tmuxForwardsLinks(this.#options.env).then((forwards) => {
			this.#probe.setTmuxLinks(forwards);
			this.#checkCapabilities();
		});

		this.#workers.start();
		this.#connection.connect();
		this.#timers.push(
			setInterval(() => this.#workers.post({ kind: "snapshotRequest" }), this.#options.snapshotMs ?? SNAPSHOT_MS),
			setInterval(() => void this.#workers.reload(true), this.#options.bundleCheckMs ?? BUNDLE_CHECK_MS),
		);
		for (const signal of ["SIGTERM", "SIGHUP"] as const) {
			process.once(signal, () => this.#end({ code: 128 + (signal === "SIGTERM" ? 15 : 1) }));
		}
		return this.#done.promise;
	}

	#problem(text: string): void {
		if (this.#problems.length < 200) this.#problems.push(text);
	}

	#keyPlatform() {
		const { platform, windowsKeys } = this.#probe.capabilities();
		return { platform, windowsKeys };
	}

	/** The launcher's own writes (its screens, modes, status): nothing once it has left. */
	#show(data: string): void {
		if (this.#phase === "left") return;
		this.#noteClears(data);
		this.#output.write(data);
	}

	/** A screen clear takes the images with it (kitty frees their data): they are sent again when placed. */
	#noteClears(data: string): void {
		if (data.includes("\x1b[2J") || data.includes("\x1b[3J")) this.#images.screenCleared();
	}

	/** The UI's screen is what shows: no screen of the launcher's is up and the terminal is ours. */
	#uiOnScreen(): boolean {
		return this.#phase === "running" && !this.#consent.active && !this.#picker.active;
	}

	/** The UI draws its whole screen again, on a terminal whose modes are as it last set them. */
	#redraw(): void {
		if (this.#phase === "left") return;
		this.#show(this.#modes.restore());
		this.#workers.post({ kind: "redraw" });
	}

	#createWorkers(bundle: GuestBundleSource): WorkerSupervisor {
		const options = this.#options;
		return new WorkerSupervisor({
			bundle,
			fetchBundle: options.fetchBundle,
			startData: (reason, snapshot) =>
				startDataOf(
					{
						args: options.args,
						target: options.target,
						env: options.env,
						terminal: this.#terminal,
						probe: this.#probe,
						mouse: this.#mouse,
						preferences: this.#preferences,
						...(options.lastSession ? { lastSession: options.lastSession } : {}),
						...(options.local ? { local: options.local } : {}),
					},
					reason,
					snapshot,
				),
			connectionState: () => this.#connectionState,
			...(options.limits ? { limits: options.limits } : {}),
			mouse: this.#mouse,
			links: () => this.#hyperlinks,
			modes: this.#modes,
			clock: this.#clock,
			// Nothing of the worker's reaches the screen while the launcher's own is up; it redraws after.
			show: (data) => {
				if (!this.#uiOnScreen()) return;
				this.#noteClears(data);
				this.#pacing.show(data);
			},
			outputDropped: () => this.#pacing.overBudget(),
			onMessage: (worker, message, current) => this.#onWorkerMessage(worker, message, current),
			onGone: (worker) => {
				if (this.#asking?.worker !== worker) return;
				this.#consent.cancel();
				this.#picker.cancel();
			},
			onReplaced: () => {
				this.#suspendPrivileged = false;
				this.#images.reset();
				this.#show(this.#modes.cleanup() + this.#status.clear());
				// The old worker's objects must not linger on the server under handles the new one will reuse.
				this.#connection.reconnect();
			},
			onGiveUp: () => this.#end({ code: 1 }),
			problem: (text) => this.#problem(text),
		});
	}

	#onWorkerMessage(worker: GuestWorker, message: WorkerMessage, current: boolean): void {
		switch (message.kind) {
			case "frame":
				if (current) this.#connection.send(message.text);
				return;
			case "status":
				if (current) this.#status.apply(message.action);
				return;
			case "exitOutput":
				if (current) this.#exitOutput = { text: message.text, resumable: message.resumable, session: worker.session };
				return;
			case "exit": {
				if (!current) return;
				const words = this.#farewell();
				this.#end({ code: message.code, ...(words ? { farewell: words } : {}) });
				return;
			}
			case "log":
				if (message.level !== "info") this.#problem(message.text);
				return;
			case "error":
				this.#problem(message.message);
				return;
			case "navigation":
				if (!current || !SESSION_ID.test(message.session)) return;
				mark("session open");
				// A question asked for one session is not answered for another.
				if (this.#asking?.worker === worker && this.#asking.session !== message.session) this.#consent.cancel();
				worker.session = message.session;
				this.#options.onNavigation?.(message.session);
				return;
			case "keyContext":
				if (current) this.#suspendPrivileged = message.suspendPrivileged;
				return;
			case "answer":
				this.#questions.answer(message.id, message.text, current);
				return;
			case "image":
				if (current) this.#images.receive(message.id, message.png);
				return;
			case "imagePlacements":
				if (current) this.#images.place(message.placements);
				return;
			case "request":
				if (current) void this.#answerRequest(worker, message);
				else worker.sandbox.post({ kind: "response", id: message.id, ok: false, error: "cancelled" });
				return;
		}
	}

	/** What to leave on the normal screen when the UI exited itself: its transcript and the resume hint. */
	#farewell(): string {
		if (!this.#exitOutput) return "";
		const { text, resumable, session } = this.#exitOutput;
		return exitTranscript(text) + (resumable && session ? resumeHint(this.#options.target, session) : "");
	}

	/** A worker's request for a launcher action; a question on screen is withdrawn if its worker goes away. */
	async #answerRequest(worker: GuestWorker, message: Extract<WorkerMessage, { kind: "request" }>): Promise<void> {
		this.#asking = { worker, session: worker.session };
		try {
			await this.#actions.onRequest(worker, message);
		} catch (error) {
			this.#problem(`request ${message.action}: ${errorText(error)}`);
		} finally {
			if (this.#asking?.worker === worker) this.#asking = undefined;
		}
	}

	#createActions() {
		const options = this.#options;
		const prefPaths = this.#prefPaths;
		const http = serverHttp(options.target);
		return createLauncherActions<GuestWorker>({
			consent: this.#consent,
			env: options.env,
			platform: process.platform,
			clock: this.#clock,
			p2Dir: prefPaths.p2Dir,
			cwd: process.cwd(),
			origin: () => options.target.origin(),
			current: (worker) => this.#workers.isCurrent(worker) && this.#phase !== "left",
			post: (worker, message) => worker.sandbox.post(message),
			ask: (worker, question) => this.#questions.ask(worker, question),
			write: (data) => this.#show(data),
			lend: (work) => this.#lend(work),
			redraw: () => this.#redraw(),
			preferencesChanged: () => this.#watcher.check(),
			editorCommand: () => splitCommand(editorCommand(prefPaths, options.env, process.platform)),
			selectionGesture: () => this.#gesture.take(),
			session: (worker) => worker.session,
			pickFile: (start) => this.#picker.pick(start),
			downloadFolder: () => downloadFolder(prefPaths, options.env),
			download: http.download,
			downloadArtifact: http.downloadArtifact,
			upload: http.upload,
			...(http.signOut ? { signOut: http.signOut } : {}),
			openRelay: (path) =>
				new WebSocket(`${options.target.origin().replace(/^http/, "ws")}${path}`, {
					headers: { origin: options.target.origin(), ...options.target.credentials() },
				} as unknown as string[]),
			problem: (text) => this.#problem(text),
		});
	}

	/** The terminal is another program's while `work` runs (the external editor, a suspend). */
	async #lend<T>(work: () => Promise<T>): Promise<T> {
		this.#images.hide();
		this.#phase = "lending";
		this.#show(SCHEME_REPORTS_OFF + this.#modes.lend() + this.#status.clear());
		await this.#output.idle();
		this.#terminal.stop();
		try {
			return await work();
		} finally {
			if (this.#phase === "lending") {
				this.#phase = "running";
				this.#terminal.start(this.#onInput, this.#onResize);
				this.#show(SCHEME_REPORTS_ON);
			}
		}
	}

	#createConnection(): ServerConnection {
		const target = this.#options.target;
		return new ServerConnection({
			origin: () => target.origin(),
			credentials: () => target.credentials(),
			onFrame: (text) => this.#workers.post({ kind: "frame", text }),
			onState: (state) => {
				if (state === "open") mark("connected");
				// After a reconnect the server may be a newer one, with a newer UI.
				if (state === "open" && this.#connectionState !== "open" && this.#everOpen) void this.#workers.reload(true);
				if (state === "open") this.#everOpen = true;
				this.#connectionState = state;
				this.#workers.post({ kind: "connection", state });
			},
			onSignedOut: () => this.#end({ code: 1, signedOut: true }),
			onFault: (fault) => this.#serverFault(fault),
			beforeReconnect: target.refresh,
		});
	}

	/** The server broke the protocol (a frame too large): told once a run; the connection waits longer each time. */
	#serverFault(fault: ServerFault): void {
		this.#problem(fault.text);
		if (this.#toldFault || this.#phase === "left") return;
		this.#toldFault = true;
		void this.#consent
			.notify({
				title: "The server sent more than p2 accepts",
				lines: [
					fault.text,
					`p2 closed the connection and connects again in ${Math.round(fault.retryMs / 1000)} s, waiting longer each time this happens. A server that keeps doing so is broken or hostile.`,
				],
			})
			.then(() => this.#redraw());
	}

	#checkCapabilities(): void {
		const changed = this.#probe.changed();
		if (!changed) return;
		this.#hyperlinks = changed.hyperlinks === true;
		this.#workers.post({ kind: "capabilities", capabilities: changed });
	}

	#createInputRouter(): (data: string) => void {
		return createInputRouter({
			clock: this.#clock,
			takeReply: (data) => this.#probe.takeReply(data),
			lending: () => this.#phase === "lending",
			screens: [this.#consent, this.#picker],
			observe: (data) => {
				this.#consent.noteInput();
				if (this.#mouse !== "off") this.#gesture.observe(data);
			},
			privilegedKey: (data) =>
				this.#workers.active && !this.#suspendPrivileged ? this.#privileged.match(data) : undefined,
			onKey: (action) => {
				const worker = this.#workers.active;
				if (worker) void this.#actions.onKey(worker, action);
			},
			forward: (data) => {
				this.#checkCapabilities();
				this.#workers.post({ kind: "input", data });
				// From the first key on (not during start-up, when the compilers speed the first frame).
				this.#stopLowering ??= keepBackgroundThreadsLow();
			},
			emergencyExit: () => this.#end({ code: 130 }),
		});
	}

	readonly #onResize = () => {
		this.#consent.draw();
		this.#picker.draw();
		this.#workers.postAll({ kind: "resize", columns: this.#terminal.columns, rows: this.#terminal.rows });
	};

	readonly #onProcessExit = () => {
		if (this.#phase !== "left") process.stdout.write(SCHEME_REPORTS_OFF + this.#modes.cleanup());
	};

	#end(result: Omit<LauncherResult, "problems">): void {
		if (this.#phase === "left") return;
		// What still waits for a slow terminal is dropped: the reset goes out right after the piece in flight.
		this.#output.discard();
		this.#images.reset();
		// A UI that exited itself left the cursor below what it drew (its `exitOutput` came before).
		const reset = this.#exitOutput ? this.#modes.cleanup() : this.#modes.abandon();
		this.#output.write(SCHEME_REPORTS_OFF + reset + this.#status.clear());
		this.#phase = "left";
		for (const timer of this.#timers) clearInterval(timer);
		this.#stopLowering?.();
		this.#watcher.stop();
		this.#consent.cancel();
		this.#picker.cancel();
		this.#workers.stop();
		closeForwards();
		this.#connection.close();
		process.off("exit", this.#onProcessExit);
		this.#releaseLog();
		// pi-tui's terminal writes its own resets itself, synchronously: after the launcher's, never before.
		let left = false;
		const leave = () => {
			if (left) return;
			left = true;
			clearTimeout(waiting);
			this.#terminal.stop();
			this.#done.resolve({ ...result, problems: this.#problems });
		};
		// A terminal that takes nothing at all does not keep p2 from ending.
		const waiting = setTimeout(leave, LEAVING_MS);
		void this.#output.idle().then(leave);
	}
}

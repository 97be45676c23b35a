import type { Capabilities, ConnectionState, GuestHost, LauncherMessage } from "../protocol/channel.ts";
import { MAX_COPY_CHARS } from "../protocol/channel-kinds.ts";
import { ObjectClient } from "../protocol/object-client.ts";
import { DISPLAY_DEFAULTS, type TuiMode } from "../protocol/preferences.ts";
import type { SchemaChecks } from "../protocol/schema-checks.ts";
import { Appearance } from "./appearance.ts";
import { BridgeTerminal } from "./bridge-terminal.ts";
import { CommandRegistry } from "./commands.ts";
import { Completions } from "./completions.ts";
import { registerCoreCommands } from "./core-commands.ts";
import { exitText } from "./exit-text.ts";
import { FollowedObject } from "./follow.ts";
import { hotkeysMarkdown } from "./hotkeys.ts";
import { composedScreen, InlineImages } from "./inline-images.ts";
import { KeyRouter } from "./key-router.ts";
import { keyText } from "./keymap.ts";
import { LauncherChannel } from "./launcher-channel.ts";
import { Layout } from "./layout.ts";
import type { GuestContext, GuestSnapshot } from "./plugin.ts";
import { guestPlugins } from "./plugins.ts";
import { PreferenceScreens } from "./preference-screens.ts";
import { configureProcess } from "./process-shim.ts";
import { EntryRenderers, MarkdownTransformers, ToolRenderers } from "./registries.ts";
import { Renderer } from "./renderer.ts";
import { Services } from "./services.ts";
import { OpenSession } from "./session.ts";
import { parseSnapshot, type ReloadSnapshot, serializeSnapshot } from "./snapshot.ts";

type SnapshotPart = ReturnType<Parameters<GuestSnapshot["contribute"]>[0]>;

/** How long a reloaded regular screen keeps the previous UI's scrollback when its session does not come. */
const HOLD_MS = 8000;
/** How long a regular screen that handed over its scrollback waits for its successor to take over. */
const FROZEN_MS = 20_000;

/**
 * The guest's composition root: pi-tui's renderer (fullscreen or regular, `renderer.ts`) on the bridge terminal,
 * the object client on the relayed frames, the launcher channel, the keys, and the plugins (`plugins.ts`), each
 * given one context.
 */
export class GuestRuntime {
	readonly #host: GuestHost;
	readonly #terminal: BridgeTerminal;
	readonly #renderer: Renderer;
	/** The tuiMode setting as last applied: a change of it switches the renderer (as pi's /settings does). */
	#tuiModeSetting: TuiMode | undefined;
	#holdTimer: ReturnType<typeof setTimeout> | undefined;
	#frozenTimer: ReturnType<typeof setTimeout> | undefined;
	readonly #client: ObjectClient;
	readonly #appearance: Appearance;
	readonly #commands = new CommandRegistry(() => this.#session.role);
	readonly #keys: KeyRouter;
	readonly #layout: Layout;
	readonly #session: OpenSession;
	readonly #launcher: LauncherChannel;
	readonly #snapshotParts = new Set<() => SnapshotPart>();
	readonly #restored: ReloadSnapshot | undefined;
	readonly #entryRenderers: EntryRenderers;
	readonly #images: InlineImages;
	/** The terminal's image protocol, as the launcher found it; drawn only on the fullscreen renderer. */
	#imageProtocol: Capabilities["images"];
	readonly #connectionListeners = new Set<(state: ConnectionState) => void>();
	#connection: ConnectionState = "connecting";

	/** `checks`: how frames, states, results and the reload snapshot are checked (the bundle's precompiled validators). */
	constructor(host: GuestHost, checks: SchemaChecks) {
		this.#host = host;
		const start = host.start;
		configureProcess({ env: start.env, platform: start.capabilities.platform });
		this.#terminal = new BridgeTerminal(host);
		this.#imageProtocol = start.capabilities.images;
		this.#images = new InlineImages(host, undefined);
		const notice = (text: string, tone: Parameters<Layout["notice"]>[1]) => this.#layout.notice(text, tone);
		this.#appearance = new Appearance(start, notice);
		this.#launcher = new LauncherChannel(host, notice);
		const t = () => this.#appearance.theme.current;
		this.#restored = parseSnapshot(start.snapshot, checks);
		this.#tuiModeSetting = this.#appearance.effective().settings.tuiMode;
		// The mode the previous UI had (a reload keeps it), else `--tui-mode`, else the setting (pi's order).
		const mode = this.#restored?.screen?.mode ?? start.args.tuiMode ?? this.#tuiModeSetting ?? DISPLAY_DEFAULTS.tuiMode;
		this.#renderer = new Renderer({
			terminal: this.#terminal,
			mode,
			fullscreen: () => ({
				mouse: start.mouse !== "off",
				scrollToEndIndicator: () => t().bg("selectedBg", t().fg("text", " ↓ Jump to latest message · Ctrl+End ")),
				searchMatchStyle: (s) => t().bg("searchMatchBg", t().fg("searchMatchText", t().underline(s))),
				// pi-tui's copy on select, written by the launcher: it allows it only right after it saw the gesture.
				copyOnSelect: true,
				copySelection: async (text) => {
					const answer = await this.#launcher.request("copy.selection", { text: text.slice(0, MAX_COPY_CHARS) });
					return answer.ok ? true : (answer.error ?? false);
				},
			}),
			root: (m) => this.#layout.root(m),
		});
		this.#applyImageProtocol();
		this.#session = new OpenSession((error) => this.#layout.fail(error));
		this.#keys = new KeyRouter({
			tui: this.#renderer.tui,
			commands: this.#commands,
			capabilities: start.capabilities,
			preferences: () => ({ effective: this.#appearance.effective(), problems: this.#appearance.custom.problems }),
			selector: () => this.#layout.selector?.id,
			role: () => this.#session.role,
			connected: () => this.#connection === "open",
			onError: (error) => this.#layout.fail(error),
		});
		this.#layout = new Layout({
			tui: this.#renderer.tui,
			theme: this.#appearance.theme,
			keys: (id) => this.#keys.keymap.keys(id),
			keyText: (id) => keyText(this.#keys.keymap.keys(id)),
			setProgress: (active) => this.#terminal.setProgress(active),
			shown: () => this.#release(),
		});
		this.#client = new ObjectClient({
			onProtocolError: (message) => host.post({ kind: "log", level: "warn", text: message.slice(0, 4000) }),
			checks,
		});
		this.#entryRenderers = new EntryRenderers(checks);
	}

	start(): void {
		const host = this.#host;
		const layout = this.#layout;
		this.#registerCoreCommands();
		this.#session.on("opened", ({ id }) => host.post({ kind: "navigation", session: id }));
		this.#session.on("facts", (row) => {
			const base = row.cwd.split("/").filter(Boolean).at(-1) ?? row.cwd;
			this.#terminal.setTitle(row.title ? `π - ${row.title} - ${base}` : `π - ${base}`);
		});
		this.#appearance.onChange(() => {
			this.#keysChanged();
			this.#applySettings();
		});
		const context = this.#context();
		for (const plugin of guestPlugins()) plugin.register(context);
		this.#commands.onChange(() => this.#keysChanged());
		this.#keysChanged();
		this.#applySettings();
		// Whenever a frame goes out: a selector, a dialog or pi-tui's search on screen has the keys.
		this.#terminal.onFlush = () =>
			this.#launcher.setKeyContext(Boolean(layout.selector) || this.#renderer.tui.hasOverlay());
		this.#terminal.afterFlush = (data) =>
			this.#images.afterFrame(data, this.#renderer.fullscreen ? composedScreen(this.#renderer.fullscreen) : []);
		this.#renderer.mount();
		layout.focusInput();
		this.#renderer.addInputListener((data) => this.#keys.onKey(data));
		host.onMessage((message) => this.#onMessage(message));
		this.#appearance.startNotices();
		this.#takeOverScreen();
		this.#renderer.start();
		// A regular screen after another UI whose scrollback is not known (a crash, a snapshot without it) is
		// drawn afresh, clearing what was there, rather than below it.
		if (this.#renderer.mode === "regular" && host.start.reason !== "start" && !this.#holdTimer) {
			this.#renderer.tui.requestRender(true);
		}
		this.#terminal.setTitle(`π - p2 · ${host.start.origin.replace(/^[a-z]+:\/\//, "")}`);
		host.post({ kind: "ready" });
	}

	#context(): GuestContext {
		const client = this.#client;
		const runtime = this;
		const layout = this.#layout;
		return {
			start: this.#host.start,
			ui: layout,
			session: this.#session,
			objects: {
				open: (contract, input) => client.open(contract, input),
				follow: (contract, inputFor, options) =>
					new FollowedObject((c, input) => client.open(c, input), this.#session, contract, inputFor, options),
				get connection() {
					return runtime.#connection;
				},
				onConnection: (listener) => {
					this.#connectionListeners.add(listener);
					return () => this.#connectionListeners.delete(listener);
				},
			},
			launcher: this.#launcher,
			images: this.#images,
			commands: this.#commands,
			registries: {
				toolRenderers: new ToolRenderers(),
				entryRenderers: this.#entryRenderers,
				markdownTransformers: new MarkdownTransformers(),
				slots: layout.slots,
				completions: new Completions(),
				addContexts: (provider) => this.#keys.addContexts(provider),
				addInputListener: (listener) => this.#renderer.addInputListener(listener),
			},
			services: new Services(),
			preferences: this.#appearance,
			snapshot: {
				restored: this.#restored,
				contribute: (part) => {
					this.#snapshotParts.add(part);
					return () => this.#snapshotParts.delete(part);
				},
			},
		};
	}

	#registerCoreCommands(): void {
		const layout = this.#layout;
		const appearance = this.#appearance;
		const screens = new PreferenceScreens({
			ui: layout,
			theme: appearance.theme,
			commands: this.#commands,
			themeArg: this.#host.start.args.theme,
			effective: () => appearance.effective(),
			tuiMode: () => this.#renderer.mode,
			facts: () => appearance.facts,
			images: () => this.#images.protocol !== undefined,
			custom: () => appearance.custom,
			keymap: () => this.#keys.keymap,
			savePrefs: (patch) => this.#launcher.request("savePrefs", { patch }),
			saved: (settings) => {
				appearance.setForRun(settings);
				// The mode chosen is the mode on, even when the setting already said so (`--tui-mode` won).
				if (settings.tuiMode) this.#switchTuiMode(settings.tuiMode);
			},
		});
		registerCoreCommands(this.#commands, {
			exit: () => this.#exit(),
			clearEditor: () => layout.setEditorText(""),
			reload: () => this.#host.post({ kind: "reload" }),
			hotkeys: () => layout.block("Keyboard Shortcuts", hotkeysMarkdown(this.#keys.keymap, this.#commands)),
			palette: () => screens.openPalette(),
			settings: () => screens.openSettings(),
			keybindings: () => screens.openKeybindings(),
			// pi's /tree walks a session's branches; p2's branches are forks: /tree shows sessions and their forks.
			doubleEscape: () => {
				const action = appearance.effective().settings.doubleEscapeAction ?? DISPLAY_DEFAULTS.doubleEscapeAction;
				if (action === "none") return;
				const command = this.#commands.get(action === "fork" ? "app.session.fork" : "app.session.tree");
				if (command) this.#commands.invoke(command).catch((error: unknown) => this.#layout.fail(error));
			},
		});
	}

	#keysChanged(): void {
		this.#keys.rebuild();
		this.#layout.keysChanged();
	}

	/** pi's display settings for the renderer, with pi's bounds (the screen's own are its plugin's). */
	#applySettings(): void {
		const s = this.#appearance.effective().settings;
		if (s.tuiMode !== this.#tuiModeSetting) {
			this.#tuiModeSetting = s.tuiMode;
			this.#switchTuiMode(s.tuiMode ?? DISPLAY_DEFAULTS.tuiMode);
		}
		this.#applyRendererSettings();
	}

	/** The display settings of the renderer on now (a new one after a switch gets them too). */
	#applyRendererSettings(): void {
		const s = this.#appearance.effective().settings;
		const tui = this.#renderer.tui;
		tui.setShowHardwareCursor(s.showHardwareCursor ?? DISPLAY_DEFAULTS.showHardwareCursor);
		tui.setClearOnShrink(s.terminal?.clearOnShrink ?? DISPLAY_DEFAULTS["terminal.clearOnShrink"]);
		this.#appearance.theme.setCodeBlockIndent(
			s.markdown?.codeBlockIndent ?? DISPLAY_DEFAULTS["markdown.codeBlockIndent"],
		);
		const fullscreen = this.#renderer.fullscreen;
		if (!fullscreen) return;
		fullscreen.setCopyOnSelect(s.fullscreenCopyOnSelect ?? DISPLAY_DEFAULTS.fullscreenCopyOnSelect);
		const wheel = s.fullscreenWheelScrollLines;
		fullscreen.setWheelScrollLines(typeof wheel === "number" ? Math.max(1, Math.min(100, Math.floor(wheel))) : "auto");
	}

	/**
	 * Images are placed at the rows of the fullscreen renderer's screen; the regular renderer's scrollback has
	 * no fixed rows to place them at, so there the transcript shows pi's text placeholder instead.
	 */
	#applyImageProtocol(): void {
		this.#images.setProtocol(this.#renderer.mode === "fullscreen" ? this.#imageProtocol : undefined);
	}

	/** pi's switch of renderer when its tuiMode setting changes, said as pi says it. */
	#switchTuiMode(mode: TuiMode): void {
		if (mode === this.#renderer.mode) return;
		if (!this.#renderer.switchTo(mode)) {
			this.#layout.notice("Close active overlays before changing TUI mode");
			return;
		}
		this.#release();
		this.#applyRendererSettings();
		this.#applyImageProtocol();
		this.#layout.focusInput();
		this.#layout.notice(`TUI mode: ${mode}`);
	}

	/**
	 * Regular mode after a reload: the terminal shows the previous UI's scrollback, which this one draws on
	 * from once its session is on screen (or after `HOLD_MS` without one), writing only what differs. Until
	 * then it is drawn as it was, so a screen without the conversation yet never replaces it.
	 */
	#takeOverScreen(): void {
		const scrollback = this.#restored?.screen?.scrollback;
		if (this.#host.start.reason !== "reload" || !scrollback || this.#renderer.mode !== "regular") return;
		this.#renderer.resume(scrollback);
		this.#holdTimer = setTimeout(() => this.#release(), HOLD_MS);
	}

	/** The whole screen again (after the launcher's own screens, or a handover that did not happen). */
	#redraw(): void {
		clearTimeout(this.#frozenTimer);
		this.#frozenTimer = undefined;
		this.#renderer.thaw();
		this.#renderer.tui.requestRender(true);
	}

	#release(): void {
		if (this.#holdTimer === undefined) return;
		clearTimeout(this.#holdTimer);
		this.#holdTimer = undefined;
		this.#renderer.release();
	}

	#exit(): void {
		this.#host.post({ kind: "snapshot", data: serializeSnapshot(this.#snapshot()) });
		// pi's fullscreenExitOutput: the transcript (default) or only the resume hint, which the launcher adds for
		// a session that has something in it (a used session has a title; an unused one is not listed either).
		// In regular mode the transcript is in the scrollback already: the cursor goes below it (pi).
		const output = this.#appearance.effective().settings.fullscreenExitOutput ?? DISPLAY_DEFAULTS.fullscreenExitOutput;
		const regular = this.#renderer.mode === "regular";
		if (regular) this.#renderer.tui.stop();
		const lines =
			output === "transcript" && !regular ? this.#images.forExit(this.#layout.exitLines(this.#terminal.columns)) : [];
		this.#host.post({ kind: "exitOutput", text: exitText(lines), resumable: Boolean(this.#session.facts?.title) });
		this.#layout.dispose();
		this.#host.post({ kind: "exit", code: 0 });
	}

	/**
	 * The person's work and place: which session, and what each plugin keeps (drafts, the reading position).
	 * `handover`: a successor takes over now (a reload), and gets what this UI wrote into the scrollback; a
	 * snapshot kept for a crash is not current by the time it is used, so it carries only the mode.
	 */
	#snapshot(handover = false): ReloadSnapshot {
		const parts: SnapshotPart = Object.assign({}, ...[...this.#snapshotParts].map((part) => part()));
		const session = this.#session.id;
		const scrollback = handover ? this.#renderer.scrollback() : undefined;
		return {
			version: 2,
			draft: parts.draft ?? "",
			...(session ? { session } : {}),
			drafts: parts.drafts ?? {},
			...(parts.anchor ? { anchor: parts.anchor } : {}),
			screen: { mode: this.#renderer.mode, ...(scrollback ? { scrollback } : {}) },
		};
	}

	#onMessage(message: LauncherMessage): void {
		if (this.#launcher.handle(message)) return;
		switch (message.kind) {
			case "input":
				return this.#terminal.input(message.data);
			case "resize":
				// The previous UI's lines are for the old width: this UI draws its own from now on.
				this.#release();
				return this.#terminal.resize(message.columns, message.rows);
			case "frame":
				return this.#client.receive(message.text);
			case "connection":
				if (message.state === "open") this.#client.attach((text) => this.#host.post({ kind: "frame", text }));
				else this.#client.detach();
				this.#connection = message.state;
				for (const listener of [...this.#connectionListeners]) listener(message.state);
				return;
			case "capabilities":
				this.#terminal.setCapabilities(message.capabilities);
				this.#appearance.theme.setHyperlinks(message.capabilities.hyperlinks === true);
				this.#imageProtocol = message.capabilities.images;
				this.#applyImageProtocol();
				return this.#appearance.setFacts({ ...this.#appearance.facts, trueColor: message.capabilities.trueColor });
			case "terminalColors":
				return this.#appearance.setFacts({ ...this.#appearance.facts, colors: message.colors });
			case "imageRefused":
				return this.#images.refuse(message.id);
			case "redraw":
				return this.#redraw();
			case "snapshotRequest":
				// A successor takes over (reload): in regular mode it draws on from the scrollback as it is now,
				// so this UI writes nothing more (the launcher asks for a redraw if the successor fails; should
				// neither come, this UI draws again after a while rather than stay still).
				if (message.handover && this.#renderer.mode === "regular") {
					this.#renderer.freeze();
					clearTimeout(this.#frozenTimer);
					this.#frozenTimer = setTimeout(() => this.#redraw(), FROZEN_MS);
				}
				return this.#host.post({ kind: "snapshot", data: serializeSnapshot(this.#snapshot(message.handover)) });
			case "preferences":
				return this.#appearance.setPreferences(message.preferences);
			default:
				return;
		}
	}
}

import { isKeyRelease, setKeybindings, TuiAltScreen } from "@earendil-works/pi-tui";
import { type AccessState, accessContract } from "../plugins/access/contract.ts";
import { chatContract, MAIN_CONVERSATION } from "../plugins/chat/contract.ts";
import { filesContract } from "../plugins/files/contract.ts";
import { loginContract } from "../plugins/login/contract.ts";
import { registerLoginCommands } from "../plugins/login/tui.ts";
import { modelsContract } from "../plugins/models/contract.ts";
import { searchContract } from "../plugins/search/contract.ts";
import { sessionsContract } from "../plugins/sessions/contract.ts";
import { ShareCommands } from "../plugins/sharing/tui.ts";
import { statusContract } from "../plugins/status/contract.ts";
import { type TuiDefaultsState, tuiDefaultsContract } from "../plugins/tui-defaults/contract.ts";
import type { GuestHost, LauncherMessage, WorkerMessage } from "../protocol/channel.ts";
import { MAX_COPY_CHARS } from "../protocol/channel-kinds.ts";
import { isPrivilegedId } from "../protocol/keybindings.ts";
import { ObjectClient, type ObjectRef } from "../protocol/object-client.ts";
import { DISPLAY_DEFAULTS, type Preferences, type PrefsPatch } from "../protocol/preferences.ts";
import { isOwnerRole, isParticipantRole, type Role } from "../protocol/roles.ts";
import { guestLabel } from "../protocol/share-link.ts";
import type { TerminalFacts } from "../ui/theme/builtin.ts";
import { ThemeRef } from "../ui/theme/theme-ref.ts";
import { BridgeTerminal } from "./bridge-terminal.ts";
import { ChatActions } from "./chat-actions.ts";
import { ChatScreen, type ChatSettings, DEFAULT_CHAT_SETTINGS } from "./chat-screen.ts";
import { CommandRegistry } from "./commands.ts";
import { registerCoreCommands } from "./core-commands.ts";
import { registerFileCommands } from "./file-commands.ts";
import { registerForkCommands } from "./fork-commands.ts";
import { GoneDirectoryNotice, goneDirectoryOf } from "./gone-directory-notice.ts";
import { hotkeysMarkdown } from "./hotkeys.ts";
import { buildKeymap, type Keymap, keyMatches, keyText } from "./keymap.ts";
import { LauncherAnswers } from "./launcher-answers.ts";
import { registerModelCommands } from "./model-commands.ts";
import { PreferenceNotices } from "./preference-notices.ts";
import { PreferenceScreens } from "./preference-screens.ts";
import { type EffectivePreferences, effectivePreferences } from "./preferences.ts";
import { configureProcess } from "./process-shim.ts";
import { chooseSession } from "./session-choice.ts";
import { registerSessionCommands } from "./session-commands.ts";
import type { SessionSelector } from "./session-selector.ts";
import { parseSnapshot, type ReadingAnchor, type ReloadSnapshot, serializeSnapshot } from "./snapshot.ts";
import { applyStartFlags } from "./start-flags.ts";
import { type CustomThemes, customThemes, resolveThemeName, themeFor } from "./theme-setting.ts";

const ROLE_LABELS: Record<Role, string> = {
	deviceOwner: "this device",
	owner: "owner",
	full: "guest · full access",
	view: "guest · view only",
};

/**
 * The guest's runtime: pi-tui's fullscreen renderer on the bridge terminal, the object client on the relayed
 * frames, and the chat screen on the session pi would open.
 */
export class GuestRuntime {
	readonly #host: GuestHost;
	readonly #terminal: BridgeTerminal;
	readonly #tui: TuiAltScreen;
	readonly #client: ObjectClient;
	readonly #theme: ThemeRef;
	readonly #screen: ChatScreen;
	readonly #commands = new CommandRegistry();
	#keymap: Keymap;
	#preferences: Preferences | undefined;
	#serverDefaults: TuiDefaultsState | undefined;
	/** What is in effect: the server's defaults under the person's own. */
	#effective: EffectivePreferences = effectivePreferences(undefined, undefined);
	#custom: CustomThemes = { themes: new Map(), problems: [] };
	#themeProblem: string | undefined;
	#preferenceNotices: PreferenceNotices | undefined;
	/** What the current theme was made from (see `#refreshTheme`). */
	#themeSource = "";
	#role: Role | undefined;
	/** The id the server stamps on this person's messages. */
	#viewer: string | undefined;
	#share: ShareCommands | undefined;
	readonly #actions: ChatActions;
	/** The session directory's files, opened on the first completion. */
	#files: ObjectRef<typeof filesContract> | undefined;
	#chat: ObjectRef<typeof chatContract> | undefined;
	#sessionId: string | undefined;
	#sessions: ObjectRef<typeof sessionsContract> | undefined;
	#status: ObjectRef<typeof statusContract> | undefined;
	#models: ObjectRef<typeof modelsContract> | undefined;
	#search: ObjectRef<typeof searchContract> | undefined;
	#login: ObjectRef<typeof loginContract> | undefined;
	/** Drafts of the sessions this run has left, by `session:conversation`. */
	readonly #drafts: Record<string, string>;
	#choosing = false;
	readonly #restored: ReloadSnapshot | undefined;
	#facts: TerminalFacts;
	#connected = false;
	#progressShown = false;
	readonly #answers: LauncherAnswers;
	readonly #requests = new Map<string, (answer: LauncherAnswer) => void>();
	#requestCount = 0;

	constructor(host: GuestHost) {
		this.#host = host;
		const start = host.start;
		configureProcess({ env: start.env, platform: start.capabilities.platform });
		this.#terminal = new BridgeTerminal(host);
		this.#facts = { colors: start.terminalColors, trueColor: start.capabilities.trueColor };
		this.#preferences = start.preferences;
		this.#effective = effectivePreferences(start.preferences, undefined);
		this.#custom = customThemes(start.preferences?.themes ?? []);
		this.#theme = new ThemeRef(this.#themeFor(this.#facts));
		this.#themeSource = this.#themeKey();
		this.#keymap = this.#buildKeymap();
		this.#answers = new LauncherAnswers({
			host,
			chat: () => this.#chat?.state,
			editorText: () => (this.#screen.selector ? null : this.#screen.editor.getText()),
			setEditorText: (text) => {
				this.#screen.editor.setText(text);
				this.#tui.requestRender();
			},
			attach: (file) => this.#screen.attach(file),
			notice: (text, tone) => this.#screen.notice(text, tone),
			request: (action, payload) => this.#request(action, payload),
		});
		const t = () => this.#theme.current;
		this.#tui = new TuiAltScreen(this.#terminal, false, undefined, {
			mouse: start.mouse !== "off",
			scrollToEndIndicator: () => t().bg("selectedBg", t().fg("text", " ↓ Jump to latest message · Ctrl+End ")),
			searchMatchStyle: (s) => t().bg("searchMatchBg", t().fg("searchMatchText", t().underline(s))),
			// pi-tui's copy on select, written by the launcher: it allows it only right after it saw the gesture.
			copyOnSelect: true,
			copySelection: async (text) => {
				const answer = await this.#request("copy.selection", { text: text.slice(0, MAX_COPY_CHARS) });
				return answer.ok ? true : (answer.error ?? false);
			},
		});
		this.#client = new ObjectClient({
			onProtocolError: (message) => host.post({ kind: "log", level: "warn", text: message.slice(0, 4000) }),
		});
		const snapshot = parseSnapshot(start.snapshot);
		this.#restored = snapshot;
		this.#drafts = { ...snapshot?.drafts };
		this.#screen = new ChatScreen({
			tui: this.#tui,
			theme: this.#theme,
			// What the launcher signed in as, until the server says who this is.
			place: `${hostOf(start.origin)} · ${start.signedInAs === "device" ? ROLE_LABELS.deviceOwner : start.signedInAs === "owner" ? ROLE_LABELS.owner : "…"}`,
			home: start.local?.home,
			draft: snapshot?.draft ?? start.args.draft,
			verbose: start.args.verbose,
			commands: this.#commands,
			keyText: (id) => keyText(this.#keymap.keys(id)),
			send: (text, mode, attachments) => this.#actions.send(text, mode, attachments),
			files: (prefix, mode) => {
				const session = this.#sessionId;
				if (!session || (this.#role && !isParticipantRole(this.#role))) return undefined;
				if (this.#files?.input.session !== session) {
					this.#files?.close();
					this.#files = this.#client.open(filesContract, { session });
				}
				const files = this.#files;
				return files.ready.then(() => files.call("complete", { prefix, mode })).then((r) => r.items);
			},
			shell: (command, includeInContext) => this.#actions.shell(command, includeInContext),
			loadOlder: async (beforeSeq) => {
				if (!this.#chat) return { entries: [], more: false };
				return this.#chat.call("page", { beforeSeq, limit: 100 });
			},
		});
		this.#actions = new ChatActions({
			screen: this.#screen,
			chat: () => this.#chat,
			role: () => this.#role,
			viewer: () => this.#viewer,
			requestRender: () => this.#tui.requestRender(),
			newRequestId,
		});
	}

	start(): void {
		const screen = this.#screen;
		const preferences = new PreferenceScreens({
			screen,
			theme: this.#theme,
			commands: this.#commands,
			themeArg: this.#host.start.args.theme,
			effective: () => this.#effective,
			facts: () => this.#facts,
			custom: () => this.#custom,
			keymap: () => this.#keymap,
			savePrefs: (patch) => this.#request("savePrefs", { patch }),
		});
		registerCoreCommands(this.#commands, {
			exit: () => this.#exit(),
			clearEditor: () => {
				screen.editor.setText("");
				this.#tui.requestRender();
			},
			reload: () => this.#host.post({ kind: "reload" }),
			rename: async (title) => {
				if (!isOwnerRole(this.#role)) throw new Error("Only the owner can rename this session.");
				if (!this.#sessions || !this.#sessionId) throw new Error("No session is open yet.");
				await this.#sessions.call("rename", { id: this.#sessionId, title });
			},
			notice: (text) => screen.notice(text),
			newSession: (path) => this.#newSession(path),
			compact: (instructions) => this.#actions.compact(instructions),
			newContext: (handoff) => this.#actions.newContext(handoff),
			stop: () => void this.#actions.stop(),
			followUp: () => screen.submit(screen.editor.getText(), "followUp"),
			dequeue: () => void this.#actions.restoreQueued(),
			toggleTools: () => screen.toggleToolsExpanded(),
			toggleThinking: () => screen.toggleThinking(),
			hotkeys: () => screen.block("Keyboard Shortcuts", hotkeysMarkdown(this.#keymap, this.#commands)),
			palette: () => preferences.openPalette(),
			settings: () => preferences.openSettings(),
			keybindings: () => preferences.openKeybindings(),
			// pi's /tree walks a session's branches; p2's branches are forks, shown as a tree in the session picker.
			doubleEscape: () => {
				const action = this.#effective.settings.doubleEscapeAction ?? DISPLAY_DEFAULTS.doubleEscapeAction;
				if (action === "none") return;
				this.#commands.get(action === "fork" ? "app.session.fork" : "app.session.resume")?.run("");
			},
		});
		registerModelCommands(this.#commands, {
			theme: this.#theme,
			role: () => this.#role,
			chat: () => this.#chat,
			catalog: () => this.#catalog(),
			keys: (id) => this.#keymap.keys(id),
			showSelector: (id, component) => screen.showSelector(id, component),
			closeSelector: () => screen.closeSelector(),
			notice: (text, tone) => screen.notice(text, tone),
		});
		this.#answers.register(this.#commands);
		registerForkCommands(this.#commands, {
			theme: this.#theme,
			role: () => this.#role,
			chat: () => this.#chat,
			entries: () => screen.entries,
			open: (session, draft) => {
				this.#openSession(session);
				screen.editor.setText(draft);
				this.#tui.requestRender();
			},
			showSelector: (id, component) => screen.showSelector(id, component),
			closeSelector: () => screen.closeSelector(),
			notice: (text, tone) => screen.notice(text, tone),
		});
		registerFileCommands(this.#commands, {
			theme: this.#theme,
			screen,
			chat: () => this.#chat,
			session: () => this.#sessionId,
			request: (...args) => this.#request(...args),
		});
		this.#commands.register({
			id: "p2.signOut",
			title: "Sign this device out of the server (owner)",
			category: "p2",
			slash: {
				name: "signout",
				argumentHint: "[all]",
				complete: (prefix) =>
					"all".startsWith(prefix) ? [{ value: "all", label: "all", description: "every owner login" }] : null,
			},
			run: async (args) => {
				if (this.#role !== "owner") return screen.notice("Only an owner signed in with a link can sign out here.");
				const answer = await this.#request("signOut", { all: args.trim() === "all" });
				if (!answer.ok && answer.error !== "declined")
					screen.notice(`Not signed out: ${answer.error ?? "refused"}`, "warning");
			},
		});
		registerLoginCommands(this.#commands, {
			theme: this.#theme,
			role: () => this.#role,
			login: () => {
				this.#login ??= this.#client.open(loginContract, {});
				return this.#login;
			},
			keys: (id) => this.#keymap.keys(id),
			showSelector: (id, component) => screen.showSelector(id, component),
			closeSelector: () => screen.closeSelector(),
			requestRender: () => this.#tui.requestRender(),
			notice: (text, tone) => screen.notice(text, tone),
			request: (...args) => this.#request(...args),
		});
		this.#share = new ShareCommands(this.#commands, {
			theme: this.#theme,
			client: this.#client,
			origin: this.#host.start.origin,
			role: () => this.#role,
			session: () => this.#sessionId,
			waiting: () => this.#chat?.state?.queue.filter((q) => q.waiting) ?? [],
			approve: async (id) => this.#chat?.call("approve", { id }),
			reject: async (id) => this.#chat?.call("reject", { id }),
			showSelector: (id, component) => screen.showSelector(id, component),
			closeSelector: () => screen.closeSelector(),
			selector: () => screen.selector,
			requestRender: () => this.#tui.requestRender(),
			notice: (text, tone) => screen.notice(text, tone),
			setPresence: (text) => screen.slots.setStatus("sharing", text),
			copy: (text, label) => this.#request("copy", { text, label }),
		});
		registerSessionCommands(this.#commands, {
			theme: this.#theme,
			home: this.#host.start.local?.home,
			role: () => this.#role,
			sessions: () => this.#sessions,
			search: () => {
				this.#search ??= this.#client.open(searchContract, {});
				return this.#search;
			},
			current: () => this.#sessionId,
			chat: () => this.#chat?.state,
			status: () => this.#status?.state,
			open: (id) => this.#openSession(id),
			keys: (id) => this.#keymap.keys(id),
			showSelector: (id, component) => screen.showSelector(id, component),
			closeSelector: () => screen.closeSelector(),
			selector: () => (screen.selector === "sessions" ? (screen.selectorComponent as SessionSelector) : undefined),
			requestRender: () => this.#tui.requestRender(),
			notice: (text, tone) => screen.notice(text, tone),
			block: (title, markdown) => screen.block(title, markdown),
		});
		this.#commands.onChange(() => this.#keysChanged());
		this.#keysChanged();
		this.#applySettings();
		// Whenever a frame goes out: a selector, a dialog or pi-tui's search on screen has the keys (seed 3.1 rule 3).
		this.#terminal.onFlush = () => this.#answers.setKeyContext(Boolean(screen.selector) || this.#tui.hasOverlay());
		this.#tui.setLayoutRoot(this.#screen.root);
		this.#tui.setFocus(this.#screen.editor);
		this.#tui.addInputListener((data) => this.#onKey(data));
		this.#host.onMessage((message) => this.#onMessage(message));
		const defaults = this.#client.open(tuiDefaultsContract, {});
		defaults.onChange((state) => this.#applyPreferences(this.#preferences, state));
		const access = this.#client.open(accessContract, {});
		access.onChange((state) => {
			const before = this.#role;
			this.#role = state.role;
			// The owner changed this guest's access while they are here: say so where they look.
			if (before && before !== state.role && (state.role === "full" || state.role === "view")) {
				this.#screen.notice(
					state.role === "full"
						? "The owner gave you full access: you can send messages and run commands."
						: "The owner made your access view only.",
					state.role === "full" ? "success" : "warning",
				);
			}
			this.#viewer = state.id;
			this.#screen.setPlace(`${hostOf(this.#host.start.origin)} · ${roleLabel(state)}`);
			this.#screen.setViewer(state.id, isOwnerRole(state.role));
			// A view-only guest gets the read-only bar where the editor would be; a demotion takes the editor away live.
			this.#screen.setReadOnly(state.role === "view" ? `Joined as ${guestLabel(state.name)} · read-only` : undefined);
			this.#share?.follow();
			void this.#chooseSession(state.session);
		});
		if (this.#themeProblem) this.#screen.notice(this.#themeProblem, "warning");
		this.#preferenceNotices = new PreferenceNotices((text, tone) => this.#screen.notice(text, tone), {
			quiet: this.#host.start.reason !== "start",
		});
		this.#preferenceNotices.update("local", [...(this.#preferences?.problems ?? []), ...this.#custom.problems]);
		this.#tui.start();
		this.#terminal.setTitle(`π - p2 · ${hostOf(this.#host.start.origin)}`);
		this.#host.post({ kind: "ready" });
	}

	async #chooseSession(guestSession: string | null): Promise<void> {
		if (this.#sessionId || this.#choosing || !this.#role) return;
		this.#choosing = true;
		try {
			const sessions = this.#client.open(sessionsContract, {});
			this.#sessions = sessions;
			await sessions.ready;
			const start = this.#host.start;
			// A reload or a restart reopens the session that was open, whatever the command line said.
			const reopened = this.#restored?.session;
			const choice = reopened
				? { kind: "open" as const, id: reopened }
				: chooseSession({
						role: this.#role,
						guestSession,
						sessions: sessions.state?.sessions ?? [],
						args: {
							continue: start.args.continue || start.args.resume,
							...(start.args.session ? { session: start.args.session } : {}),
							...(start.args.fork ? { fork: start.args.fork } : {}),
							...(start.args.lastSession ? { lastSession: start.args.lastSession } : {}),
						},
						...(start.local ? { local: { cwd: start.local.cwd } } : {}),
					});
			let id: string;
			if (choice.kind === "none") return this.#screen.notice(choice.reason, "warning");
			if (choice.kind === "create") id = (await sessions.call("create", { cwd: choice.cwd })).id;
			else if (choice.kind === "fork") id = await this.#forkAtStart(choice.id);
			else id = choice.id;
			sessions.onChange(() => this.#showRow());
			this.#openSession(id, this.#restored?.anchor);
			if (start.reason === "start") void this.#warnAboutModels();
			// pi's --resume: the session picker, over the session that opened (Esc stays there).
			if (start.reason === "start" && start.args.resume) this.#commands.get("app.session.resume")?.run("");
			// The command line's choices apply once, to the session this start opened (not after a reload).
			if (start.reason === "start" && this.#role && this.#chat) {
				await applyStartFlags(start.args, {
					role: this.#role,
					session: id,
					sessions,
					chat: this.#chat,
					client: this.#client,
					notice: (text, tone) => this.#screen.notice(text, tone),
				});
			}
		} catch (error) {
			this.#screen.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
		} finally {
			this.#choosing = false;
		}
	}

	/** pi's `--fork <id>`: a new fork of that session, in the directory p2 started in when the server is this device's. */
	async #forkAtStart(source: string): Promise<string> {
		const chat = this.#client.open(chatContract, { session: source, conversation: MAIN_CONVERSATION });
		try {
			await chat.ready;
			const cwd = this.#host.start.local?.cwd;
			const { session } = await chat.call("fork", cwd ? { cwd } : {});
			this.#screen.notice("Forked to new session");
			return session;
		} finally {
			chat.close();
		}
	}

	/**
	 * pi's startup warnings about models, for owners (guests never see the catalog): none configured, or a
	 * configuration the server could not read.
	 */
	async #warnAboutModels(): Promise<void> {
		if (!isOwnerRole(this.#role)) return;
		const catalog = this.#catalog();
		try {
			await catalog.ready;
			const state = catalog.state;
			if (!state) return;
			for (const problem of state.problems) this.#screen.notice(`Error: ${problem}`, "error");
			if (state.models.length === 0) {
				this.#screen.notice(
					"Warning: No models available. Use /login to log into a provider via OAuth or API key, or add a provider to models.json in the server's data directory.",
					"warning",
				);
			}
		} catch {
			// Not fatal: the footer says "unknown" and a send says why.
		}
	}

	/** The owner's model catalog, opened once and kept (the model commands and the start warnings share it). */
	#catalog() {
		this.#models ??= this.#client.open(modelsContract, {});
		return this.#models;
	}

	/** The footer and the terminal title follow the open session's row in the catalog. */
	#showRow(): void {
		const row = this.#sessions?.state?.sessions.find((s) => s.id === this.#sessionId);
		if (!row) return;
		this.#screen.setSession({ cwd: row.cwd, branch: row.branch, title: row.title });
		const base = row.cwd.split("/").filter(Boolean).at(-1) ?? row.cwd;
		this.#terminal.setTitle(row.title ? `π - ${row.title} - ${base}` : `π - ${base}`);
	}

	/**
	 * Opens a session's main conversation on the screen. Switching from another keeps that one's draft (the
	 * snapshot carries drafts per session) and gives the new one its own.
	 */
	#openSession(id: string, anchor?: ReadingAnchor): void {
		const previous = this.#sessionId;
		if (previous && previous !== id) {
			this.#drafts[`${previous}:${MAIN_CONVERSATION}`] = this.#screen.editor.getText();
			this.#chat?.close();
			this.#status?.close();
			this.#screen.reset();
			this.#screen.editor.setText(this.#drafts[`${id}:${MAIN_CONVERSATION}`] ?? "");
		}
		this.#sessionId = id;
		this.#share?.follow();
		this.#host.post({ kind: "navigation", session: id });
		this.#showRow();
		const input = { session: id, conversation: MAIN_CONVERSATION };
		const chat = this.#client.open(chatContract, input);
		this.#chat = chat;
		let pending = anchor;
		const gone = new GoneDirectoryNotice();
		chat.onChange((state) => {
			if (this.#chat !== chat) return;
			this.#actions.takeReturned(chat, state);
			this.#screen.setChat(state);
			const warning = gone.next(goneDirectoryOf(state), this.#role, this.#host.start.local?.cwd);
			if (warning) this.#screen.notice(warning, "warning");
			this.#showProgress();
			if (pending && this.#screen.restorePosition(pending)) pending = undefined;
		});
		chat.onStatus((status) => {
			if (this.#chat === chat && status.kind === "refused") this.#screen.notice(`Error: ${status.message}`, "error");
		});
		const status = this.#client.open(statusContract, input);
		this.#status = status;
		status.onChange((state) => {
			if (this.#status === status) this.#screen.setStatus(state);
		});
	}

	/** `/new [path]`: a new session in the path (relative to the open session's directory), or the same one. */
	async #newSession(path: string): Promise<void> {
		if (!isOwnerRole(this.#role)) throw new Error("Only the owner can start sessions; you were given this one.");
		if (!this.#sessions) throw new Error("No session catalog yet.");
		// A session whose directory is gone starts the new one where p2 started (pi's "continue in" that one).
		const here =
			(goneDirectoryOf(this.#chat?.state)
				? undefined
				: this.#sessions.state?.sessions.find((s) => s.id === this.#sessionId)?.cwd) ?? this.#host.start.local?.cwd;
		const cwd = !path ? here : path.startsWith("/") ? path : here ? `${here.replace(/\/$/, "")}/${path}` : undefined;
		if (!cwd) throw new Error("Usage: /new <absolute path on the server>");
		const row = await this.#sessions.call("create", { cwd });
		this.#openSession(row.id);
		this.#screen.notice("✓ New session started", "success");
	}

	/**
	 * Sends with one request id: while the connection is down the send waits and is retried with the same id,
	 * so it runs once. Other refusals reject, and the screen puts the text back into the editor.
	 */
	/**
	 * Keys reach the commands after pi-tui's transcript keys, and before the focused component: the most
	 * specific command whose context holds and whose keys match runs. While a selector or pi-tui's search
	 * has focus, only commands that name the overlay are eligible; everything else goes to it.
	 */
	#onKey(data: string): { consume: boolean } | undefined {
		if (isKeyRelease(data)) return undefined;
		const contexts = this.#contexts();
		const inOverlay = contexts.has("overlay");
		for (const entry of this.#keymap.ordered) {
			const id = entry.command.id;
			// The launcher's actions are never the worker's to run.
			if (isPrivilegedId(id)) continue;
			if (inOverlay && ![...entry.when.required].some((n) => n === "overlay" || n.startsWith("overlay:"))) continue;
			if (!entry.when.test(contexts) || !keyMatches(this.#keymap, data, id)) continue;
			Promise.resolve()
				.then(() => entry.command.run(""))
				.catch((error: unknown) => this.#screen.notice(`Error: ${errorText(error)}`, "error"));
			return { consume: true };
		}
		return undefined;
	}

	/** The context names commands' `when` expressions test (seed 6.3). */
	#contexts(): Set<string> {
		const screen = this.#screen;
		const contexts = new Set<string>(["chat"]);
		const selector = screen.selector;
		if (selector) contexts.add("overlay").add(`overlay:${selector}`);
		else if (this.#tui.hasOverlay()) contexts.add("overlay").add("searching");
		else contexts.add("editorFocused");
		const text = screen.editor.getText();
		if (text === "") contexts.add("editorEmpty");
		if (text.startsWith("!")) contexts.add("bashMode");
		if (screen.editor.isShowingAutocomplete()) contexts.add("autocomplete");
		if (screen.busy) contexts.add("busy");
		const role = this.#role;
		if (isOwnerRole(role)) contexts.add("owner");
		else if (role) contexts.add("guest");
		if (isParticipantRole(role)) contexts.add("participant");
		if (this.#connected) contexts.add("connected");
		if (screen.attachments.length) contexts.add("attachments");
		return contexts;
	}

	#buildKeymap(): Keymap {
		const caps = this.#host.start.capabilities;
		const prefs = this.#effective;
		return buildKeymap(
			{ platform: caps.platform, windowsKeys: caps.windowsKeys },
			this.#commands.all(),
			prefs.keybindings,
			[...prefs.problems, ...this.#custom.problems],
		);
	}

	/** Commands or the person's bindings changed: a new keymap for every component (pi-tui reads it per key). */
	#keysChanged(): void {
		this.#keymap = this.#buildKeymap();
		setKeybindings(this.#keymap.manager);
		this.#screen.keysChanged();
	}

	#applyPreferences(preferences: Preferences | undefined, server: TuiDefaultsState | undefined): void {
		this.#preferences = preferences;
		this.#serverDefaults = server;
		this.#effective = effectivePreferences(preferences, server);
		this.#custom = customThemes(preferences?.themes ?? []);
		this.#preferenceNotices?.update("local", [...(preferences?.problems ?? []), ...this.#custom.problems]);
		if (server) this.#preferenceNotices?.update("server", server.problems);
		this.#keysChanged();
		this.#applySettings();
		const problem = this.#themeProblem;
		this.#refreshTheme();
		if (this.#themeProblem && this.#themeProblem !== problem) this.#screen.notice(this.#themeProblem, "warning");
	}

	/**
	 * A new theme only when what it is made of changed (the setting, the terminal's facts, the chosen custom
	 * theme's document): every component rebuilds on a new theme, so an unrelated change must not cause one.
	 */
	#refreshTheme(): void {
		const key = this.#themeKey();
		if (key === this.#themeSource) return;
		this.#themeSource = key;
		this.#theme.set(this.#themeFor(this.#facts));
	}

	#themeKey(): string {
		const setting = this.#host.start.args.theme ?? this.#effective.theme ?? "system";
		const name = resolveThemeName(setting, this.#facts);
		return JSON.stringify([setting, this.#facts, (name && this.#custom.themes.get(name)) ?? null]);
	}

	/** pi's terminal.showTerminalProgress: the tab shows progress (OSC 9;4) while the agent works. */
	#showProgress(): void {
		const shown = this.#effective.settings.terminal?.showTerminalProgress === true && this.#screen.busy;
		if (shown === this.#progressShown) return;
		this.#progressShown = shown;
		this.#terminal.setProgress(shown);
	}

	/** pi's display settings, with pi's bounds. */
	#applySettings(): void {
		const s = this.#effective.settings;
		const settings: ChatSettings = {
			hideThinkingBlock: s.hideThinkingBlock ?? DEFAULT_CHAT_SETTINGS.hideThinkingBlock,
			editorPaddingX: clamp(s.editorPaddingX ?? DEFAULT_CHAT_SETTINGS.editorPaddingX, 0, 3),
			autocompleteMaxVisible: clamp(s.autocompleteMaxVisible ?? DEFAULT_CHAT_SETTINGS.autocompleteMaxVisible, 3, 20),
			quietStartup: s.quietStartup ?? DEFAULT_CHAT_SETTINGS.quietStartup,
			mermaid: s.markdown?.mermaid ?? DEFAULT_CHAT_SETTINGS.mermaid,
			scrollbar: s.fullscreenScrollbar ?? DEFAULT_CHAT_SETTINGS.scrollbar,
		};
		this.#screen.applySettings(settings);
		this.#tui.setShowHardwareCursor(s.showHardwareCursor ?? DISPLAY_DEFAULTS.showHardwareCursor);
		this.#tui.setClearOnShrink(s.terminal?.clearOnShrink ?? DISPLAY_DEFAULTS["terminal.clearOnShrink"]);
		this.#tui.setCopyOnSelect(s.fullscreenCopyOnSelect ?? DISPLAY_DEFAULTS.fullscreenCopyOnSelect);
		this.#theme.setCodeBlockIndent(s.markdown?.codeBlockIndent ?? DISPLAY_DEFAULTS["markdown.codeBlockIndent"]);
		this.#showProgress();
		const wheel = s.fullscreenWheelScrollLines;
		this.#tui.setWheelScrollLines(typeof wheel === "number" ? clamp(wheel, 1, 100) : "auto");
	}

	#request(...args: LauncherRequest): Promise<LauncherAnswer> {
		const id = `r${++this.#requestCount}`;
		return new Promise((resolve) => {
			this.#requests.set(id, resolve);
			const [action, payload] = args;
			// The union above is the UI's typed view of the channel's request messages; the launcher checks each.
			this.#host.post({ kind: "request", id, action, payload } as Extract<WorkerMessage, { kind: "request" }>);
		});
	}

	/** `--theme` for this run, else the person's setting, else pi's `system` theme. */
	#themeFor(facts: TerminalFacts) {
		const setting = this.#host.start.args.theme ?? this.#effective.theme;
		const { theme, problem } = themeFor(setting, facts, this.#custom);
		this.#themeProblem = problem;
		return theme;
	}

	/** The system theme follows what the terminal reports; an unchanged report keeps the theme (and caches). */
	#setFacts(facts: TerminalFacts): void {
		if (JSON.stringify(facts) === JSON.stringify(this.#facts)) return;
		this.#facts = facts;
		this.#refreshTheme();
	}

	#exit(): void {
		this.#host.post({ kind: "snapshot", data: serializeSnapshot(this.#snapshot()) });
		this.#screen.dispose();
		this.#host.post({ kind: "exit", code: 0 });
	}

	#snapshot(): ReloadSnapshot {
		const draft = this.#screen.editor.getText();
		const anchor = this.#screen.readingPosition();
		const drafts = { ...this.#drafts };
		if (this.#sessionId) drafts[`${this.#sessionId}:${MAIN_CONVERSATION}`] = draft;
		return {
			version: 2,
			draft,
			...(this.#sessionId ? { session: this.#sessionId } : {}),
			drafts,
			...(anchor ? { anchor } : {}),
		};
	}

	#onMessage(message: LauncherMessage): void {
		if (this.#answers.handle(message)) return;
		switch (message.kind) {
			case "input":
				return this.#terminal.input(message.data);
			case "resize":
				return this.#terminal.resize(message.columns, message.rows);
			case "frame":
				return this.#client.receive(message.text);
			case "connection":
				if (message.state === "open") this.#client.attach((text) => this.#host.post({ kind: "frame", text }));
				else this.#client.detach();
				this.#connected = message.state === "open";
				return this.#screen.setConnection(message.state);
			case "capabilities":
				this.#terminal.setCapabilities(message.capabilities);
				return this.#setFacts({ ...this.#facts, trueColor: message.capabilities.trueColor });
			case "terminalColors":
				return this.#setFacts({ ...this.#facts, colors: message.colors });
			case "redraw":
				return this.#tui.requestRender(true);
			case "snapshotRequest":
				return this.#host.post({ kind: "snapshot", data: serializeSnapshot(this.#snapshot()) });
			case "preferences":
				return this.#applyPreferences(message.preferences, this.#serverDefaults);
			case "response": {
				const resolve = this.#requests.get(message.id);
				this.#requests.delete(message.id);
				return resolve?.({
					ok: message.ok,
					...(message.error ? { error: message.error } : {}),
					...(message.attached ? { attached: message.attached } : {}),
				});
			}
			default:
				return;
		}
	}
}

/** The launcher's answer to a request. */
export interface LauncherAnswer {
	readonly ok: boolean;
	readonly error?: string;
	readonly attached?: { id: string; name: string; size: number; mimeType: string };
}

/** What the UI asks the launcher to do, on its own consent screen. */
export type LauncherRequest =
	| ["savePrefs", { patch: PrefsPatch }]
	| ["copy", { text: string; label?: string }]
	| ["openUrl", { url: string }]
	| ["copy.selection", { text: string }]
	| ["signOut", { all: boolean }]
	| ["attach", { path: string }]
	| ["download", { session: string; id: string; name: string; size: number }];

/** The header's words for who this is: a guest's own (unverified) name and their access. */
function roleLabel(state: AccessState): string {
	if (state.role !== "full" && state.role !== "view") return ROLE_LABELS[state.role];
	const access = state.role === "full" ? "full access" : "view only";
	return `guest · ${guestLabel(state.name)} · ${access}`;
}

function hostOf(origin: string): string {
	return origin.replace(/^[a-z]+:\/\//, "");
}

function newRequestId(): string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	let id = "";
	for (let i = 0; i < 22; i++) id += alphabet[Math.floor(Math.random() * alphabet.length)];
	return id;
}

function clamp(value: number, min: number, max: number): number {
	return Math.max(min, Math.min(max, Math.floor(value)));
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * The chat screen in pi's layouts: fullscreen, the transcript above a dock of the pending area, the editor (or
 * the selector open in its place) and the footer; regular, the same followed by the dock in the scrollback. Data flows one way: object states → display items →
 * components; keys → commands → object calls.
 */
import { type Component, Spacer, Text, VStack } from "@earendil-works/pi-tui";
import type { CommandRegistry } from "../../../guest/commands.ts";
import type { GuestScreen, GuestUi, NoticeTone } from "../../../guest/layout.ts";
import type { GuestRegistries } from "../../../guest/plugin.ts";
import type { ReadingAnchor } from "../../../guest/snapshot.ts";
import type { UsageTotals } from "../../../protocol/common.ts";
import { DISPLAY_DEFAULTS } from "../../../protocol/preferences.ts";
import type { ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import { Footer, type FooterData } from "../../../ui/footer.ts";
import { Header } from "../../../ui/header.ts";
import type { InlineImageParts } from "../../../ui/inline-image.ts";
import { createMermaidTransformer } from "../../../ui/mermaid.ts";
import { type LoadedResources, StartupResources, type StartupResourcesData } from "../../../ui/startup-resources.ts";
import type { ChatEntry, ChatState, QueueMode } from "../contract.ts";
import { type AttachedFile, Composer } from "./composer.ts";
import {
	type CommittedItems,
	committedItems,
	type DisplayItem,
	displayItems,
	liveAnswerItem,
	onlyAnswerGrew,
	shownWithKey,
	type ViewOptions,
} from "./display-items.ts";
import { Dock } from "./dock.ts";
import { headerData } from "./header-hints.ts";
import { createItem } from "./item-factory.ts";
import { Transcript } from "./transcript.ts";

export type { AttachedFile };

export interface ChatScreenOptions {
	readonly ui: Pick<GuestUi, "tui" | "theme" | "slots" | "selectorSlot" | "selector" | "keyText" | "focusInput">;
	readonly registries: Pick<
		GuestRegistries,
		"toolRenderers" | "entryRenderers" | "markdownTransformers" | "completions"
	>;
	/** What `/` lists and runs. */
	readonly commands: CommandRegistry;
	readonly place: string;
	readonly home: string | undefined;
	readonly draft: string;
	/** `--verbose`: the header shows even with quietStartup. */
	readonly verbose?: boolean;
	/** Older committed entries, before `beforeSeq` (the chat's `page`). */
	loadOlder(beforeSeq: number): Promise<{ entries: ChatEntry[]; more: boolean }>;
	send(text: string, mode: QueueMode, attachments: string[]): Promise<void>;
	shell(command: string, includeInContext: boolean): Promise<void>;
	/** Images drawn by the launcher: how, and whether it draws any now (else pi's text placeholders). */
	readonly images?: { readonly parts: InlineImageParts; drawn(): boolean };
}

/** The session facts the footer shows, from the sessions catalog. */
export interface SessionFacts {
	readonly cwd: string | undefined;
	readonly branch?: string | null;
	readonly title: string;
}

/** The usage numbers the footer shows (the usage plugin's). */
export interface FooterUsage {
	readonly conversation: UsageTotals;
	/** The whole session: its conversation and its subagents'. */
	readonly session?: UsageTotals;
	readonly cacheHitRate: number | null;
	readonly contextTokens: number | null;
	readonly contextUnknown: boolean;
}

/** Display settings the chat applies (pi's names and defaults). */
export interface ChatSettings {
	readonly hideThinkingBlock: boolean;
	readonly editorPaddingX: number;
	readonly autocompleteMaxVisible: number;
	readonly quietStartup: boolean | "header";
	readonly mermaid: "off" | "final" | "streaming";
	readonly scrollbar: "auto" | "always" | "hidden";
	/** pi's terminal.showImages and terminal.imageWidthCells. */
	readonly showImages: boolean;
	readonly imageWidthCells: number;
}
export const DEFAULT_CHAT_SETTINGS: ChatSettings = {
	hideThinkingBlock: DISPLAY_DEFAULTS.hideThinkingBlock,
	editorPaddingX: DISPLAY_DEFAULTS.editorPaddingX,
	autocompleteMaxVisible: DISPLAY_DEFAULTS.autocompleteMaxVisible,
	quietStartup: DISPLAY_DEFAULTS.quietStartup,
	mermaid: DISPLAY_DEFAULTS["markdown.mermaid"],
	scrollbar: DISPLAY_DEFAULTS.fullscreenScrollbar,
	showImages: DISPLAY_DEFAULTS["terminal.showImages"],
	imageWidthCells: DISPLAY_DEFAULTS["terminal.imageWidthCells"],
};

export class ChatScreen implements GuestScreen {
	readonly root: Component;
	readonly flow: Component;
	readonly #options: ChatScreenOptions;
	readonly #header: Header;
	/** pi's loaded resources under the header ([Context] AGENTS.md…). */
	readonly #resources: StartupResources;
	readonly #footer: Footer;
	readonly #transcript: Transcript;
	readonly #composer: Composer;
	readonly #dock: Dock;
	readonly #readOnlyBar = new Text("", 1, 0);
	/** pi's blank row above the editor (its widget area keeps one when empty). */
	readonly #aboveEditor = new Spacer(1);
	readonly #scrollListeners = new Set<() => void>();
	#wasAway = false;
	readonly #listening: (() => void)[];
	#place: string;
	#chat: ChatState | undefined;
	#usage: FooterUsage | undefined;
	/** The committed entries' items, made for this version of the entries. */
	#committed: { version: number; items: CommittedItems } | undefined;
	#session: SessionFacts = { cwd: undefined, title: "" };
	/** Providers with usable models (the footer names the model's provider when there are several). */
	#providers = 0;
	#conversationLabel: string | undefined;
	#connection: "connecting" | "open" | "closed" = "connecting";
	#wasOpen = false;
	#toolsExpanded = false;
	/** `--verbose`: the header and the loaded resources start expanded, as pi's, until Ctrl+O is used. */
	#startupExpanded: boolean;
	#settings: ChatSettings = DEFAULT_CHAT_SETTINGS;
	/** Who is looking: their own messages carry no author label. */
	#viewer: string | undefined;
	#viewerOwns = false;
	/** Set for a view-only guest: the line shown where the editor would be. */
	#readOnly: string | undefined;
	/** The session's skills and prompt templates, as another plugin lists them (pi's [Skills] and [Prompts]). */
	#loaded: LoadedResources = { skills: [], prompts: [] };

	constructor(options: ChatScreenOptions) {
		this.#options = options;
		this.#startupExpanded = options.verbose === true;
		const { ui, registries } = options;
		const { tui, theme } = ui;
		this.#place = options.place;
		this.#header = new Header(theme, this.#headerData());
		this.#resources = new StartupResources(theme, this.#resourcesData());
		this.#footer = new Footer(theme, this.#footerData());
		this.#composer = new Composer({
			tui,
			theme,
			draft: options.draft,
			commands: options.commands,
			completions: registries.completions,
			paddingX: DEFAULT_CHAT_SETTINGS.editorPaddingX,
			autocompleteMaxVisible: DEFAULT_CHAT_SETTINGS.autocompleteMaxVisible,
			level: () => this.#level(),
			send: options.send,
			shell: options.shell,
			notice: (text, tone) => this.notice(text, tone),
			// A gone directory is refused first, and its text goes back to the editor as other refusals do.
			noModel: () => Boolean(this.#chat) && !this.#chat?.model && !this.#chat?.directoryGone,
			changed: () => this.#refresh(),
		});
		const drawMermaid = createMermaidTransformer(theme);
		this.#transcript = new Transcript({
			tui,
			theme,
			top: [this.#header, ui.slots.container("header"), this.#resources],
			entryRenderers: registries.entryRenderers,
			create: (item) =>
				createItem(item, {
					theme,
					toolRenderers: registries.toolRenderers,
					entryRenderers: registries.entryRenderers,
					markdownTransformers: registries.markdownTransformers,
					drawMermaid,
					mermaid: () => this.#settings.mermaid,
					...(options.images ? { images: options.images.parts } : {}),
				}),
			loadOlder: options.loadOlder,
			changed: () => this.#refresh(),
			notice: (text, tone) => this.notice(text, tone),
		});
		this.#dock = new Dock({
			theme,
			editor: this.#composer.editor,
			keyText: (id) => ui.keyText(id),
			requestRender: () => tui.requestRender(),
			chat: () => this.#chat,
			refresh: () => this.#refresh(),
		});
		const selectorOpen = () => Boolean(ui.selector);
		const dock = new VStack([
			{ component: this.#dock.pending, shrink: 1, minSize: 0 },
			{ component: this.#aboveEditor, shrink: 1, minSize: 0 },
			{ component: ui.slots.container("widgets:above"), shrink: 1, minSize: 0 },
			{ component: this.editor, shrink: 1, minSize: 3, visible: () => !selectorOpen() && !this.#readOnly },
			{
				component: this.#readOnlyBar,
				shrink: 1,
				minSize: 1,
				visible: () => !selectorOpen() && Boolean(this.#readOnly),
			},
			{ component: ui.selectorSlot, shrink: 1, minSize: 1, visible: selectorOpen },
			{ component: ui.slots.container("widgets:below"), shrink: 1, minSize: 0 },
			{ component: this.#footer, shrink: 1, minSize: 0 },
		]);
		// Draws nothing: tells listeners when the transcript leaves its newest lines or comes back to them.
		const scrollWatch: Component = {
			invalidate() {},
			render: () => {
				const away = this.scrolledAway();
				if (away !== this.#wasAway) {
					this.#wasAway = away;
					queueMicrotask(() => {
						for (const listener of [...this.#scrollListeners]) listener();
					});
				}
				return [];
			},
		};
		this.root = new VStack([
			{ component: this.#transcript.view, basis: 0, grow: 1, shrink: 1, minSize: 1 },
			{ component: scrollWatch, basis: 0, grow: 0, shrink: 0, minSize: 0 },
			{ component: dock, basis: "auto", grow: 0, shrink: 1, minSize: 1 },
		]);
		// pi's regular mode: the editor and footer follow the content directly, with no blank filler.
		this.flow = new VStack([{ component: this.#transcript.document }, { component: dock }]);
		this.#listening = [
			theme.onChange(() => this.#refresh()),
			ui.slots.onChange(() => this.#footer.set(this.#footerData())),
		];
	}

	get editor() {
		return this.#composer.editor;
	}

	/** The agent is working or compacting: Escape stops it. */
	/** The transcript is scrolled up, away from its newest lines. */
	scrolledAway(): boolean {
		return this.#transcript.scrolls && !this.#transcript.view.isFollowingEnd;
	}

	onScroll(listener: () => void): () => void {
		this.#scrollListeners.add(listener);
		return () => this.#scrollListeners.delete(listener);
	}

	get busy(): boolean {
		return Boolean(this.#chat?.live || this.#chat?.compacting || this.#chat?.shell);
	}

	/** The conversation's entries this screen has: the window and the older pages loaded. */
	get entries(): readonly ChatEntry[] {
		return this.#transcript.entries;
	}

	get attachments(): readonly AttachedFile[] {
		return this.#composer.attachments;
	}

	inputTarget(): Component {
		return this.#readOnly ? this.#readOnlyBar : this.editor;
	}

	editorText(): string {
		return this.editor.getText();
	}

	setEditorText(text: string): void {
		this.editor.setText(text);
	}

	/** The launcher's connection to the server: while it is down, sends wait and the dock says so. */
	setConnection(state: "connecting" | "open" | "closed"): void {
		this.#connection = state;
		if (state === "open") this.#wasOpen = true;
		this.#refresh();
	}

	setChat(state: ChatState | undefined): void {
		const previous = this.#chat;
		// A streamed frame only grows the answer being written: that item alone changes (nothing else on screen
		// reads its text), not the transcript's list, the pending area or the footer.
		if (previous && state?.live?.message && onlyAnswerGrew(previous, state)) {
			const item = liveAnswerItem(state.live, state.live.message, { hideThinking: this.#settings.hideThinkingBlock });
			if (this.#transcript.update(item)) {
				this.#chat = state;
				this.#options.ui.tui.requestRender();
				return;
			}
		}
		const wasBusy = this.busy;
		const first = !previous && state;
		this.#chat = state;
		// A streamed frame changes what runs, not the entries: they are not looked through again for it.
		if (state && (state.entries !== previous?.entries || this.busy !== wasBusy)) {
			this.#transcript.merge(state.entries, this.busy);
		}
		if (first) this.#transcript.setHasOlder(state.older);
		// Up-arrow history starts with this person's own messages in the conversation, oldest first (pi).
		if (first) {
			for (const entry of state.entries) {
				if (entry.kind === "user") this.editor.addToHistory(entry.text);
			}
		}
		this.#refresh();
	}

	setUsage(usage: FooterUsage | undefined): void {
		this.#usage = usage;
		this.#footer.set(this.#footerData());
		this.#options.ui.tui.requestRender();
	}

	setSession(facts: SessionFacts): void {
		this.#session = facts;
		this.#resources.set(this.#resourcesData());
		this.#footer.set(this.#footerData());
		this.#options.ui.tui.requestRender();
	}

	/** The session's skills and prompt templates changed (pi's [Skills] and [Prompts] under the header). */
	setLoadedResources(loaded: LoadedResources): void {
		this.#loaded = loaded;
		this.#resources.set(this.#resourcesData());
		this.#options.ui.tui.requestRender();
	}

	/** The footer's crumb names the subagent whose conversation is open (`cwd • title › subagent`). */
	setConversationLabel(label: string | undefined): void {
		this.#conversationLabel = label;
		this.#footer.set(this.#footerData());
		this.#options.ui.tui.requestRender();
	}

	setProviderCount(count: number): void {
		this.#providers = count;
		this.#footer.set(this.#footerData());
		this.#options.ui.tui.requestRender();
	}

	setPlace(place: string): void {
		this.#place = place;
		this.#header.set(this.#headerData());
		this.#options.ui.tui.requestRender();
	}

	notice(text: string, tone: NoticeTone = "status"): void {
		this.#transcript.notice(text, tone);
		this.#refresh();
	}

	block(title: string, markdown: string): void {
		this.#transcript.block(title, markdown);
		this.#refresh();
	}

	/** Who is looking, and whether they own the session (they approve guests' messages). */
	setViewer(id: string, owner: boolean): void {
		if (this.#viewer === id && this.#viewerOwns === owner) return;
		this.#viewer = id;
		this.#viewerOwns = owner;
		this.#refresh();
	}

	/** A view-only guest: no editor, this line instead (undefined: the editor is back). */
	setReadOnly(line: string | undefined): void {
		if (this.#readOnly === line) return;
		this.#readOnly = line;
		this.#readOnlyBar.setText(line ? this.#options.ui.theme.current.fg("dim", line) : "");
		this.#options.ui.focusInput();
		this.#options.ui.tui.requestRender();
	}

	attach(file: AttachedFile): void {
		this.#composer.attach(file);
	}

	detach(all = false): AttachedFile[] {
		return this.#composer.detach(all);
	}

	submit(text: string, mode: QueueMode): void {
		this.#composer.submit(text, mode);
	}

	/** The keymap or the hints changed: the header names the keys bound now. */
	keysChanged(): void {
		this.#header.set(this.#headerData());
		this.#refresh();
	}

	applySettings(settings: ChatSettings): void {
		this.#settings = settings;
		this.editor.setPaddingX(settings.editorPaddingX);
		this.editor.setAutocompleteMaxVisible(settings.autocompleteMaxVisible);
		this.#transcript.view.setScrollbar(settings.scrollbar);
		this.#header.set(this.#headerData());
		this.#refresh();
	}

	toggleToolsExpanded(): void {
		this.#toolsExpanded = !this.#toolsExpanded;
		this.#startupExpanded = false;
		this.#header.set(this.#headerData());
		this.notice(`Tool output: ${this.#toolsExpanded ? "expanded" : "collapsed"}`);
	}

	/** Thinking blocks are hidden now (pi's hideThinkingBlock, which Ctrl+T changes). */
	get thinkingHidden(): boolean {
		return this.#settings.hideThinkingBlock;
	}

	/** Empties the transcript for another session (the header, the slots and the editor stay). */
	reset(): void {
		this.#chat = undefined;
		this.#usage = undefined;
		this.#transcript.reset();
		this.#refresh();
	}

	/** The screen as pi leaves it on exit (fullscreenExitOutput "transcript"): the whole transcript, then the dock. */
	exitLines(width: number): string[] {
		const { slots } = this.#options.ui;
		const dock: Component[] = [
			this.#dock.pending,
			this.#aboveEditor,
			slots.container("widgets:above"),
			this.#readOnly ? this.#readOnlyBar : this.editor,
			slots.container("widgets:below"),
			this.#footer,
		];
		return [...this.#transcript.documentLines(width), ...dock.flatMap((part) => part.render(width))];
	}

	readingPosition(): ReadingAnchor | undefined {
		return this.#transcript.readingPosition();
	}

	restorePosition(anchor: ReadingAnchor): boolean {
		return this.#transcript.restorePosition(anchor);
	}

	dispose(): void {
		this.#dock.dispose();
		this.#transcript.dispose();
		this.#composer.dispose();
		for (const stop of this.#listening) stop();
	}

	#level(): ThinkingLevel | undefined {
		const chat = this.#chat;
		if (!chat?.model?.reasoning) return undefined;
		return chat.thinkingLevel as ThinkingLevel;
	}

	/** How wide images are drawn now; undefined when the launcher draws none (pi's text placeholders). */
	#imageCells(): number | undefined {
		const drawn = this.#options.images?.drawn() === true && this.#settings.showImages;
		return drawn ? this.#settings.imageWidthCells : undefined;
	}

	#refresh(): void {
		const chat = this.#chat;
		const { ui } = this.#options;
		let items: DisplayItem[] = [];
		if (chat) {
			const view: ViewOptions = {
				viewerId: this.#viewer,
				expandKey: ui.keyText("app.tools.expand"),
				interruptKey: ui.keyText("app.interrupt"),
				toolsExpanded: this.#toolsExpanded,
				hideThinking: this.#settings.hideThinkingBlock,
				home: this.#options.home,
				now: Date.now(),
				...(this.#imageCells() === undefined ? {} : { imageCells: this.#imageCells() }),
			};
			// A streamed answer changes only what runs: the committed entries' items are made again only when the
			// entries or the way they are shown change, not on every frame of a long transcript.
			const version = this.#transcript.entriesVersion;
			const kept = this.#committed;
			const committed =
				kept && kept.version === version && kept.items.shownWith === shownWithKey(view)
					? kept.items
					: committedItems(this.#transcript.entries, view);
			this.#committed = { version, items: committed };
			items = displayItems({ ...chat, entries: this.#transcript.entries }, view, committed);
		}
		this.#resources.set(this.#resourcesData());
		this.#transcript.show(items);
		this.#dock.update({
			chat,
			viewer: this.#viewer,
			viewerOwns: this.#viewerOwns,
			sending: this.#composer.sending,
			attachments: this.#composer.attachments,
			reconnecting: this.#connection !== "open" && this.#wasOpen,
		});
		this.#footer.set(this.#footerData());
		ui.tui.requestRender();
	}

	#headerData() {
		return headerData(
			{
				place: this.#place,
				expanded: this.#toolsExpanded || this.#startupExpanded,
				quietStartup: this.#settings.quietStartup,
				verbose: this.#options.verbose === true,
			},
			(id) => this.#options.ui.keyText(id),
		);
	}

	/** pi's startup details (the loaded resources): shown unless quietStartup says otherwise (`--verbose` shows them). */
	#resourcesData(): StartupResourcesData {
		return {
			context: this.#chat?.contextFiles ?? [],
			...this.#loaded,
			cwd: this.#session.cwd,
			home: this.#options.home,
			expanded: this.#toolsExpanded || this.#startupExpanded,
			hidden: this.#settings.quietStartup !== false && this.#options.verbose !== true,
		};
	}

	#footerData(): FooterData {
		const chat = this.#chat;
		const usage = this.#usage;
		return {
			cwd: this.#session.cwd,
			branch: this.#session.branch ?? null,
			home: this.#options.home,
			title: this.#session.title,
			...(this.#conversationLabel ? { conversation: this.#conversationLabel } : {}),
			usage: usage?.conversation,
			sessionCost: usage?.session?.cost ?? 0,
			cacheHitRate: usage?.cacheHitRate ?? null,
			contextTokens: usage?.contextTokens ?? null,
			contextUnknown: usage?.contextUnknown ?? false,
			autoCompaction: true,
			model: chat?.model ?? null,
			providers: this.#providers,
			thinkingLevel: chat?.thinkingLevel ?? "off",
			statuses: this.#options.ui.slots.statuses(),
		};
	}
}

/**
 * The chat screen in pi's fullscreen layout: the transcript (header, messages, tool cards, status lines) in a
 * scroll view that follows new output, above a dock of the pending area, the editor and the footer. Data
 * flows one way: object states → display items → components; keys → commands → object calls.
 */
import { type Component, Container, ScrollView, Text, type TuiAltScreen, VStack } from "@earendil-works/pi-tui";
import type { ChatEntry, ChatState, QueueMode } from "../plugins/chat/contract.ts";
import type { StatusState } from "../plugins/status/contract.ts";
import { DISPLAY_DEFAULTS } from "../protocol/preferences.ts";
import type { ThinkingLevel } from "../protocol/theme-tokens.ts";
import { ChatEditor, SPINNER_MS } from "../ui/chat-editor.ts";
import { Footer, type FooterData } from "../ui/footer.ts";
import { Header, type HeaderHint } from "../ui/header.ts";
import { createMermaidTransformer } from "../ui/mermaid.ts";
import { visibleText } from "../ui/text.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import { ToolCard, type ToolCardData } from "../ui/tools/tool-card.ts";
import { AssistantMessage, type AssistantMessageData } from "../ui/transcript/assistant-message.ts";
import { CompactionSummary, type CompactionSummaryData } from "../ui/transcript/compaction-summary.ts";
import { HelpBlock, type HelpBlockData } from "../ui/transcript/help-block.ts";
import { ResetMarker, type ResetMarkerData } from "../ui/transcript/reset-marker.ts";
import { ShellBlock, type ShellBlockData } from "../ui/transcript/shell-block.ts";
import { StatusLine, type StatusLineData } from "../ui/transcript/status-line.ts";
import type { ThemedItem } from "../ui/transcript/themed.ts";
import { UserMessage, type UserMessageData } from "../ui/transcript/user-message.ts";
import { type CommandRegistry, parseSlash, SlashAutocomplete } from "./commands.ts";
import { CustomEntry, type CustomEntryData } from "./custom-entry.ts";
import { authorLabel, type DisplayItem, displayItems, sameItem, shownFrom } from "./display-items.ts";
import { EditorCompletion, type FileSource } from "./editor-completion.ts";
import { EntryHistory } from "./entry-history.ts";
import { EntryRenderers, MarkdownTransformers, Slots, ToolRenderers } from "./registries.ts";
import type { ReadingAnchor } from "./snapshot.ts";

export interface ChatScreenOptions {
	readonly tui: TuiAltScreen;
	readonly theme: ThemeRef;
	readonly place: string;
	readonly home: string | undefined;
	readonly draft: string;
	/** `--verbose`: the header shows even with quietStartup. */
	readonly verbose?: boolean;
	/** Older committed entries, before `beforeSeq` (the chat's `page`). */
	loadOlder(beforeSeq: number): Promise<{ entries: ChatEntry[]; more: boolean }>;
	/** Sends a message (with attached files' ids); resolves when the server took it (or refused it, with the reason). */
	send(text: string, mode: QueueMode, attachments: string[]): Promise<void>;
	/** The session directory's files for `@` and Tab (from the server). */
	readonly files?: FileSource;
	/** pi's `!cmd` (with `includeInContext`) and `!!cmd`. */
	shell(command: string, includeInContext: boolean): Promise<void>;
	/** What `/` lists and runs. */
	readonly commands: CommandRegistry;
	/** The keys bound to an id now, as pi writes them in hints (`ctrl+c`); empty when unbound. */
	keyText(id: string): string;
}

export interface AttachedFile {
	readonly id: string;
	readonly name: string;
	readonly size: number;
}

/** `12 KB`, as pi's chips write sizes. */
function fileSize(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The session facts the footer shows, from the sessions catalog. */
export interface SessionFacts {
	readonly cwd: string | undefined;
	readonly branch?: string | null;
	readonly title: string;
}

/**
 * The header's hints, by the id whose keys they name (pi's startup header, pi-look §1.1–1.2); `literal` hints
 * name what is typed, not a key.
 */
type Hint = { id?: string | readonly string[]; literal?: string; description: string; suffix?: string };
const HINTS: readonly Hint[] = [
	{ id: "app.interrupt", description: "interrupt" },
	{ id: ["app.clear", "app.exit"], description: "clear/exit" },
	{ literal: "/", description: "commands" },
	{ literal: "!", description: "bash" },
	{ id: "app.tools.expand", description: "more" },
];
const EXPANDED_HINTS: readonly Hint[] = [
	{ id: "app.interrupt", description: "to interrupt" },
	{ id: "app.clear", description: "to clear" },
	{ id: "app.clear", suffix: " twice", description: "to exit" },
	{ id: "app.exit", description: "to exit (empty)" },
	{ id: "app.suspend", description: "to suspend" },
	{ id: "tui.editor.deleteToLineEnd", description: "to delete to end" },
	{ id: "app.thinking.cycle", description: "to cycle thinking level" },
	{ id: ["app.model.cycleForward", "app.model.cycleBackward"], description: "to cycle models" },
	{ id: "app.model.select", description: "to select model" },
	{ id: "app.tools.expand", description: "to expand tools" },
	{ id: "app.thinking.toggle", description: "to expand thinking" },
	{ id: "app.editor.external", description: "for external editor" },
	{ literal: "/", description: "for commands" },
	{ literal: "!", description: "to run bash" },
	{ literal: "!!", description: "to run bash (no context)" },
	{ id: "app.message.followUp", description: "to queue follow-up" },
	{ id: "app.message.dequeue", description: "to edit all queued messages" },
	{ id: "app.clipboard.pasteImage", description: "to paste files, images, or text" },
];

/** Display settings the chat applies (pi's names and defaults). */
export interface ChatSettings {
	readonly hideThinkingBlock: boolean;
	readonly editorPaddingX: number;
	readonly autocompleteMaxVisible: number;
	readonly quietStartup: boolean | "header";
	readonly mermaid: "off" | "final" | "streaming";
	readonly scrollbar: "auto" | "always" | "hidden";
}
export const DEFAULT_CHAT_SETTINGS: ChatSettings = {
	hideThinkingBlock: DISPLAY_DEFAULTS.hideThinkingBlock,
	editorPaddingX: DISPLAY_DEFAULTS.editorPaddingX,
	autocompleteMaxVisible: DISPLAY_DEFAULTS.autocompleteMaxVisible,
	quietStartup: DISPLAY_DEFAULTS.quietStartup,
	mermaid: DISPLAY_DEFAULTS["markdown.mermaid"],
	scrollbar: DISPLAY_DEFAULTS.fullscreenScrollbar,
};

type ItemComponent = ThemedItem<unknown> & Component;

const OLDER_WATCH_MS = 200;

export class ChatScreen {
	/** Where plugins' TUI parts add tool renderers and Markdown transformers. */
	readonly toolRenderers = new ToolRenderers();
	readonly entryRenderers = new EntryRenderers();
	readonly markdownTransformers = new MarkdownTransformers();
	readonly slots = new Slots(() => {
		this.#footer.set(this.#footerData());
		this.#options.tui.requestRender();
	});
	readonly root: Component;
	readonly editor: ChatEditor;
	readonly #options: ChatScreenOptions;
	readonly #header: Header;
	readonly #document = new Container();
	readonly #items = new Map<string, { item: DisplayItem; component: ItemComponent }>();
	readonly #pending = new Text("", 1, 0);
	readonly #footer: Footer;
	readonly #mermaid: ReturnType<typeof createMermaidTransformer>;
	#chat: ChatState | undefined;
	#status: StatusState | undefined;
	#session: SessionFacts = { cwd: undefined, title: "" };
	#notices: ({ key: string; afterSeq: number } & (
		| { kind: "status"; data: StatusLineData }
		| { kind: "block"; data: HelpBlockData }
	))[] = [];
	#history = new EntryHistory();
	#hasOlder = false;
	#loadingOlder = false;
	#olderWatch: ReturnType<typeof setInterval> | undefined;
	/** Texts sent but not yet taken by the server (held while the connection is down). */
	readonly #sending: string[] = [];
	#connection: "connecting" | "open" | "closed" = "connecting";
	#wasOpen = false;
	readonly #transcript: ScrollView;
	#noticeCount = 0;
	#toolsExpanded = false;
	#hideThinking = false;
	#spinner: ReturnType<typeof setInterval> | undefined;
	#order: string[] = [];
	readonly #selectorSlot = new Container();
	#selector: { id: string; component: Component } | undefined;
	#settings: ChatSettings = DEFAULT_CHAT_SETTINGS;
	#attachments: AttachedFile[] = [];
	/** Who is looking: their own messages carry no author label. */
	#viewer: string | undefined;
	#viewerOwns = false;
	/** Set for a view-only guest: the line shown where the editor would be. */
	#readOnly: string | undefined;
	readonly #readOnlyBar = new Text("", 1, 0);

	constructor(options: ChatScreenOptions) {
		this.#options = options;
		const { tui, theme } = options;
		this.#header = new Header(theme, this.#headerData());
		this.#mermaid = createMermaidTransformer(theme);
		this.editor = new ChatEditor(tui, theme, () => this.#level(), {
			paddingX: DEFAULT_CHAT_SETTINGS.editorPaddingX,
			autocompleteMaxVisible: DEFAULT_CHAT_SETTINGS.autocompleteMaxVisible,
		});
		this.editor.setText(options.draft);
		this.editor.onSubmit = (text) => this.submit(text, "steer");
		this.editor.setAutocompleteProvider(
			new EditorCompletion(new SlashAutocomplete(options.commands), options.files ?? (() => undefined)),
		);
		this.#footer = new Footer(theme, this.#footerData());
		this.#document.addChild(this.#header);
		this.#document.addChild(this.slots.container("header"));
		const t = () => theme.current;
		const transcript = new ScrollView(this.#document, {
			follow: "end",
			primary: true,
			overscroll: "chain",
			scrollbar: "auto",
			scrollbarTrackStyle: (s) => t().fg("scrollbarTrack", s),
			scrollbarThumbStyle: (s) => t().fg("scrollbarThumb", s),
		});
		this.#transcript = transcript;
		const dock = new VStack([
			{ component: this.#pending, shrink: 1, minSize: 0 },
			{ component: this.slots.container("widgets:above"), shrink: 1, minSize: 0 },
			{ component: this.editor, shrink: 1, minSize: 3, visible: () => !this.#selector && !this.#readOnly },
			{
				component: this.#readOnlyBar,
				shrink: 1,
				minSize: 1,
				visible: () => !this.#selector && Boolean(this.#readOnly),
			},
			{ component: this.#selectorSlot, shrink: 1, minSize: 1, visible: () => Boolean(this.#selector) },
			{ component: this.slots.container("widgets:below"), shrink: 1, minSize: 0 },
			{ component: this.#footer, shrink: 1, minSize: 0 },
		]);
		this.root = new VStack([
			{ component: transcript, basis: 0, grow: 1, shrink: 1, minSize: 1 },
			{ component: dock, basis: "auto", grow: 0, shrink: 1, minSize: 1 },
		]);
		theme.onChange(() => this.#refresh());
	}

	/** The agent is working or compacting: Escape stops it. */
	get busy(): boolean {
		return Boolean(this.#chat?.live || this.#chat?.compacting || this.#chat?.shell);
	}

	/** The conversation's entries this screen has: the window and the older pages loaded. */
	get entries(): readonly ChatEntry[] {
		return this.#history.entries;
	}

	get toolsExpanded(): boolean {
		return this.#toolsExpanded;
	}

	/** The launcher's connection to the server: while it is down, sends wait and the dock says so. */
	setConnection(state: "connecting" | "open" | "closed"): void {
		this.#connection = state;
		if (state === "open") this.#wasOpen = true;
		this.#refresh();
	}

	setChat(state: ChatState | undefined): void {
		const first = !this.#chat && state;
		this.#chat = state;
		if (state) this.#history.merge(state.entries);
		if (first) this.#setHasOlder(state.older);
		// Up-arrow history starts with this person's own messages in the conversation, oldest first (pi).
		if (first) {
			for (const entry of state.entries) {
				if (entry.kind === "user") this.editor.addToHistory(entry.text);
			}
		}
		this.#refresh();
	}

	setStatus(state: StatusState | undefined): void {
		this.#status = state;
		this.#footer.set(this.#footerData());
		this.#options.tui.requestRender();
	}

	setSession(facts: SessionFacts): void {
		this.#session = facts;
		this.#footer.set(this.#footerData());
		this.#options.tui.requestRender();
	}

	setPlace(place: string): void {
		(this.#options as { place: string }).place = place;
		this.#header.set(this.#headerData());
		this.#options.tui.requestRender();
	}

	/**
	 * A status line in the transcript; one that follows another with nothing between replaces it, as pi's
	 * showStatus does. Warnings and errors are pi's showWarning and showError: each stays, and none replaces one.
	 */
	notice(text: string, tone: StatusLineData["tone"] = "status"): void {
		const afterSeq = this.#history.last?.seq ?? 0;
		const last = this.#notices.at(-1);
		if (
			last?.kind === "status" &&
			replaceable(tone) &&
			replaceable(last.data.tone) &&
			last.afterSeq === afterSeq &&
			this.#order.at(-1) === last.key
		) {
			last.data = { text, tone };
		} else {
			this.#notices.push({ key: `notice:${++this.#noticeCount}`, kind: "status", data: { text, tone }, afterSeq });
		}
		this.#refresh();
	}

	/** A block of help in the transcript, after what is there (pi's /hotkeys). */
	block(title: string, markdown: string): void {
		const afterSeq = this.#history.last?.seq ?? 0;
		this.#notices.push({ key: `notice:${++this.#noticeCount}`, kind: "block", data: { title, markdown }, afterSeq });
		this.#transcript.scrollToEnd();
		this.#refresh();
	}

	/** A selector takes the editor's place in the dock until it closes (pi's selectors). */
	showSelector(id: string, component: Component): void {
		this.#selectorSlot.clear();
		this.#selectorSlot.addChild(component);
		this.#selector = { id, component };
		this.#options.tui.setFocus(component);
		this.#options.tui.requestRender();
	}

	closeSelector(): void {
		if (!this.#selector) return;
		this.#selectorSlot.clear();
		this.#selector = undefined;
		this.#options.tui.setFocus(this.#inputTarget());
		this.#options.tui.requestRender();
	}

	/** Where typing goes when no selector is open: the editor, or the read-only bar, which takes nothing. */
	#inputTarget(): Component {
		return this.#readOnly ? this.#readOnlyBar : this.editor;
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
		this.#readOnlyBar.setText(line ? this.#options.theme.current.fg("dim", line) : "");
		if (!this.#selector) this.#options.tui.setFocus(this.#inputTarget());
		this.#options.tui.requestRender();
	}

	/** A file for the next message (uploaded by the launcher; only its id, name and size are here). */
	attach(file: AttachedFile): void {
		this.#attachments = [...this.#attachments, file];
		this.#refresh();
	}

	/** Takes back the last attached file, or all of them. */
	detach(all = false): AttachedFile[] {
		const removed = all ? this.#attachments : this.#attachments.slice(-1);
		this.#attachments = all ? [] : this.#attachments.slice(0, -1);
		this.#refresh();
		return removed;
	}

	get attachments(): readonly AttachedFile[] {
		return this.#attachments;
	}

	/** The open selector itself (a command that acts on it checks its id first). */
	get selectorComponent(): Component | undefined {
		return this.#selector?.component;
	}

	/** The open selector's id, for the `overlay:<id>` context. */
	get selector(): string | undefined {
		return this.#selector?.id;
	}

	/** The keymap or the hints changed: the header names the keys bound now. */
	keysChanged(): void {
		this.#header.set(this.#headerData());
		this.#refresh();
	}

	applySettings(settings: ChatSettings): void {
		const before = this.#settings;
		this.#settings = settings;
		if (before.hideThinkingBlock !== settings.hideThinkingBlock) this.#hideThinking = settings.hideThinkingBlock;
		this.editor.setPaddingX(settings.editorPaddingX);
		this.editor.setAutocompleteMaxVisible(settings.autocompleteMaxVisible);
		this.#transcript.setScrollbar(settings.scrollbar);
		this.#header.set(this.#headerData());
		this.#refresh();
	}

	toggleToolsExpanded(): void {
		this.#toolsExpanded = !this.#toolsExpanded;
		this.#header.set(this.#headerData());
		this.notice(`Tool output: ${this.#toolsExpanded ? "expanded" : "collapsed"}`);
	}

	toggleThinking(): void {
		this.#hideThinking = !this.#hideThinking;
		this.notice(`Thinking blocks: ${this.#hideThinking ? "hidden" : "visible"}`);
	}

	/** Enter sends (steering while busy), Alt+Enter queues a follow-up. The editor is cleared only once sent. */
	submit(text: string, mode: QueueMode): void {
		const trimmed = text.trim();
		if (!trimmed && !this.#attachments.length) return;
		this.editor.addToHistory(text);
		this.editor.setText("");
		// A known slash command runs here; any other text, even one starting with `/`, is a message (pi).
		const slash = parseSlash(trimmed);
		const command = slash && this.#options.commands.slash(slash.name);
		if (command && slash) {
			Promise.resolve()
				.then(() => command.run(slash.args))
				.catch((error: unknown) => {
					this.editor.setText(text);
					this.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
				});
			return;
		}
		// pi's bash mode: `!cmd` runs the command and the model reads it; `!!cmd` keeps it out of the context.
		const bang = /^!(!?)([\s\S]*)$/.exec(trimmed);
		if (bang && !this.#attachments.length) {
			const command = bang[2]!.trim();
			if (!command) return;
			this.#options.shell(command, bang[1] !== "!").catch((error: unknown) => {
				const now = this.editor.getText();
				this.editor.setText(now ? `${text}\n${now}` : text);
				this.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
			});
			return;
		}
		const files = this.#attachments;
		this.#attachments = [];
		this.#sending.push(text);
		this.#refresh();
		const done = () => {
			const at = this.#sending.indexOf(text);
			if (at >= 0) this.#sending.splice(at, 1);
			this.#refresh();
		};
		this.#options
			.send(
				text,
				mode,
				files.map((f) => f.id),
			)
			.then(done, (error: unknown) => {
				done();
				// Nothing is lost: the text goes back into the editor, ahead of what was typed since, and the files
				// back to the composer.
				const now = this.editor.getText();
				this.editor.setText(now ? `${text}\n${now}` : text);
				this.#attachments = [...files, ...this.#attachments];
				this.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
			});
	}

	/** Scrolled to the top with more before it: the next page is loaded above, keeping the reading position. */
	async maybeLoadOlder(): Promise<void> {
		if (!this.#hasOlder || this.#loadingOlder || this.#transcript.scrollTop > 0) return;
		const first = this.#history.first;
		if (!first) return;
		// What a compaction summarized is not shown (pi): no need to load it.
		if (first.seq <= shownFrom(this.#history.entries)) return this.#setHasOlder(false);
		this.#loadingOlder = true;
		try {
			const page = await this.#options.loadOlder(first.seq);
			this.#setHasOlder(page.more);
			const width = this.#transcript.getContentWidth(this.#options.tui.terminal.columns);
			const before = this.#document.render(width).length;
			this.#history.merge(page.entries);
			this.#refresh();
			const added = this.#document.render(width).length - before;
			if (added > 0) this.#transcript.scrollTo(this.#transcript.scrollTop + added, { disableFollow: true });
			this.#options.tui.requestRender();
		} catch (error) {
			this.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
		} finally {
			this.#loadingOlder = false;
		}
	}

	/**
	 * pi-tui scrolls the transcript itself (scroll keys and the wheel never reach the screen, and scrolling
	 * draws no new content), so while older pages exist the top is watched for.
	 */
	#setHasOlder(more: boolean): void {
		this.#hasOlder = more;
		if (more && !this.#olderWatch) this.#olderWatch = setInterval(() => void this.maybeLoadOlder(), OLDER_WATCH_MS);
		if (!more && this.#olderWatch) {
			clearInterval(this.#olderWatch);
			this.#olderWatch = undefined;
		}
	}

	/** Empties the transcript for another session (the header, the slots and the editor stay). */
	reset(): void {
		this.#history = new EntryHistory();
		this.#chat = undefined;
		this.#status = undefined;
		this.#notices = [];
		this.#items.clear();
		this.#order = [];
		this.#setHasOlder(false);
		this.#document.clear();
		this.#document.addChild(this.#header);
		this.#document.addChild(this.slots.container("header"));
		this.#refresh();
	}

	/** Where the person is reading: the item at the top of the view and the line within it; none when following. */
	readingPosition(): ReadingAnchor | undefined {
		if (this.#transcript.isFollowingEnd) return undefined;
		const top = this.#transcript.scrollTop;
		const width = this.#transcript.getContentWidth(this.#options.tui.terminal.columns);
		let line = this.#header.render(width).length + this.slots.container("header").render(width).length;
		for (const key of this.#order) {
			const height = this.#items.get(key)!.component.render(width).length;
			if (top < line + height) return { key, offset: Math.max(0, top - line) };
			line += height;
		}
		return undefined;
	}

	/** Scrolls back to a reading position once its item is on screen (after a reload); false until then. */
	restorePosition(anchor: ReadingAnchor): boolean {
		const width = this.#transcript.getContentWidth(this.#options.tui.terminal.columns);
		// The transcript clamps to the height of its last layout, which may predate this state (or be none):
		// measure it now, so the position is not cut short before the screen renders.
		const transcript = this.#transcript;
		transcript.updateLayout(
			transcript.render(this.#options.tui.terminal.columns).length,
			transcript.viewportHeight,
			() => this.#options.tui.requestRender(),
		);
		let line = this.#header.render(width).length + this.slots.container("header").render(width).length;
		for (const key of this.#order) {
			const height = this.#items.get(key)!.component.render(width).length;
			if (key === anchor.key) {
				this.#transcript.scrollTo(line + Math.min(anchor.offset, Math.max(0, height - 1)), { disableFollow: true });
				this.#options.tui.requestRender();
				return true;
			}
			line += height;
		}
		return false;
	}

	dispose(): void {
		if (this.#spinner) clearInterval(this.#spinner);
		if (this.#olderWatch) clearInterval(this.#olderWatch);
	}

	#level(): ThinkingLevel | undefined {
		const chat = this.#chat;
		if (!chat?.model?.reasoning) return undefined;
		return chat.thinkingLevel as ThinkingLevel;
	}

	#refresh(): void {
		const chat = this.#chat;
		const now = Date.now();
		const items: DisplayItem[] = chat
			? displayItems(
					// displayItems only reads the entries.
					{ ...chat, entries: this.#history.entries as ChatEntry[] },
					{
						viewerId: this.#viewer,
						expandKey: this.#options.keyText("app.tools.expand"),
						interruptKey: this.#options.keyText("app.interrupt"),
						toolsExpanded: this.#toolsExpanded,
						hideThinking: this.#hideThinking,
						home: this.#options.home,
						now,
					},
				)
			: [];
		// Notices sit after the entries that existed when they were shown.
		const merged: DisplayItem[] = [];
		let noticeAt = 0;
		const flush = (beforeSeq: number) => {
			while (noticeAt < this.#notices.length && this.#notices[noticeAt]!.afterSeq < beforeSeq) {
				const n = this.#notices[noticeAt++]!;
				merged.push({ key: n.key, kind: n.kind, data: n.data } as DisplayItem);
			}
		};
		const renderers = this.entryRenderers;
		for (const item of items) {
			flush(item.seq ?? Number.POSITIVE_INFINITY);
			const entry = item.source?.entry;
			// A plugin's renderer for this kind of entry draws it instead.
			if (entry && renderers.has(entry.kind)) {
				merged.push({
					key: item.key,
					kind: "custom",
					data: { entry, version: renderers.version },
					seq: item.seq,
				} as DisplayItem);
			} else merged.push(item);
		}
		flush(Number.POSITIVE_INFINITY);
		this.#reconcile(merged);
		this.#updateDock(chat);
		this.#footer.set(this.#footerData());
		this.#options.tui.requestRender();
	}

	#reconcile(items: DisplayItem[]): void {
		const keys = items.map((i) => i.key);
		const changedOrder = keys.length !== this.#order.length || keys.some((k, i) => k !== this.#order[i]);
		const wanted = new Set(keys);
		// A streamed answer that was just committed keeps its component: it only changes key.
		const finished = [...this.#items.entries()].filter(
			([key, { item }]) => key.startsWith("live:") && item.kind === "assistant" && !wanted.has(key),
		);
		for (const item of items) {
			const existing = this.#items.get(item.key);
			if (existing && existing.item.kind === item.kind) {
				if (!sameItem(existing.item, item)) existing.component.update(item.data as never, () => false);
				existing.item = item;
				continue;
			}
			const adopted = item.kind === "assistant" && item.committed ? finished.shift() : undefined;
			if (adopted) {
				this.#items.delete(adopted[0]);
				adopted[1].component.update(item.data as never, () => false);
				this.#items.set(item.key, { item, component: adopted[1].component });
				continue;
			}
			this.#items.set(item.key, { item, component: this.#create(item) });
		}
		for (const key of [...this.#items.keys()]) if (!wanted.has(key)) this.#items.delete(key);
		if (changedOrder) {
			this.#document.clear();
			this.#document.addChild(this.#header);
			this.#document.addChild(this.slots.container("header"));
			for (const key of keys) this.#document.addChild(this.#items.get(key)!.component);
			this.#order = keys;
		}
	}

	#create(item: DisplayItem): ItemComponent {
		const theme = this.#options.theme;
		switch (item.kind) {
			case "user":
				return new UserMessage(theme, item.data as UserMessageData) as unknown as ItemComponent;
			case "assistant": {
				const message = new AssistantMessage(theme, item.data as AssistantMessageData);
				// Mermaid first, as pi runs it before extensions' transformers; then the plugins'.
				message.transform = (md, width) => {
					// pi's markdown.mermaid: off, only once the answer is complete, or while it streams.
					const mermaid = this.#settings.mermaid;
					const draw = mermaid === "streaming" || (mermaid === "final" && !message.streaming);
					const drawn = draw ? this.#mermaid(md, width, { streaming: message.streaming }) : md;
					return this.markdownTransformers.apply(drawn, width);
				};
				return message as unknown as ItemComponent;
			}
			case "tool":
				return new ToolCard(theme, item.data as ToolCardData, (d) =>
					this.toolRenderers.resolve(d),
				) as unknown as ItemComponent;
			case "status":
				return new StatusLine(theme, item.data as StatusLineData) as unknown as ItemComponent;
			case "block":
				return new HelpBlock(theme, item.data as HelpBlockData) as unknown as ItemComponent;
			case "compaction":
				return new CompactionSummary(theme, item.data as CompactionSummaryData) as unknown as ItemComponent;
			case "marker":
				return new ResetMarker(theme, item.data as ResetMarkerData) as unknown as ItemComponent;
			case "shell":
				return new ShellBlock(theme, item.data as ShellBlockData) as unknown as ItemComponent;
			case "custom":
				return new CustomEntry(theme, item.data as CustomEntryData, (entry) =>
					this.entryRenderers.resolve(entry, theme),
				) as unknown as ItemComponent;
		}
	}

	#updateDock(chat: ChatState | undefined): void {
		const t = this.#options.theme.current;
		const queue = chat?.queue ?? [];
		const lines = queue.map((q) => {
			const label = q.waiting ? "Waiting for approval" : q.mode === "steer" ? "Steering" : "Follow-up";
			const by = q.author.id === this.#viewer ? "" : ` · ${authorLabel(q.author)}`;
			const line = t.fg(q.waiting ? "warning" : "dim", `${label}${by}: ${visibleText(q.text, false)}`);
			return q.waiting && this.#viewerOwns ? `${line}${t.fg("dim", " (/share to accept or send back)")}` : line;
		});
		const dequeue = this.#options.keyText("app.message.dequeue");
		// Alt+Up takes back one's own queued messages only.
		if (dequeue && queue.some((q) => !this.#viewer || q.author.id === this.#viewer)) {
			lines.push(t.fg("dim", `↳ ${capitalizeKeys(dequeue)} to edit all queued messages`));
		}
		for (const text of this.#sending) lines.push(t.fg("dim", `Sending: ${visibleText(text, false)}`));
		if (this.#attachments.length) {
			const chips = this.#attachments.map((a) => t.fg("accent", `[${visibleText(a.name, false)} ${fileSize(a.size)}]`));
			lines.push(
				`${chips.join(" ")} ${t.fg("dim", "(sent with the next message; Backspace on an empty editor removes the last)")}`,
			);
		}
		if (this.#connection !== "open" && this.#wasOpen) lines.push(t.fg("warning", "Reconnecting to the server…"));
		this.#pending.setText(lines.length ? `\n${lines.join("\n")}` : "");
		const live = chat?.live;
		const interrupt = this.#options.keyText("app.interrupt");
		if (chat?.compacting) {
			const reason = chat.compacting.reason;
			const what =
				reason === "manual"
					? "Compacting context..."
					: `${reason === "overflow" ? "Context overflow detected, " : ""}Auto-compacting...`;
			this.editor.setIndicator({ text: `${what}${interrupt ? ` (${interrupt} to cancel)` : ""}`, tone: "border" });
		} else if (live?.retry) {
			const secs = Math.max(0, Math.ceil((live.retry.until - Date.now()) / 1000));
			this.editor.setIndicator({
				text: `Retrying (${live.retry.attempt}/${live.retry.maxAttempts}) in ${secs}s... (escape to cancel)`,
				tone: "warning",
			});
		} else if (live) this.editor.setIndicator({ text: "Working", tone: "border" });
		else this.editor.setIndicator(undefined);
		const spinning = Boolean(live || chat?.compacting);
		if (spinning && !this.#spinner) {
			this.#spinner = setInterval(() => {
				this.editor.tick();
				// Running tools show their elapsed time; the countdown of a retry moves.
				if (this.#chat?.live?.tools.length || this.#chat?.live?.retry) this.#refresh();
				else this.#options.tui.requestRender();
			}, SPINNER_MS);
		} else if (!spinning && this.#spinner) {
			clearInterval(this.#spinner);
			this.#spinner = undefined;
		}
	}

	#headerData() {
		const keys = (id: string | readonly string[]) =>
			(typeof id === "string" ? [id] : id).map((i) => this.#options.keyText(i));
		const hints: HeaderHint[] = [];
		for (const hint of this.#toolsExpanded ? EXPANDED_HINTS : HINTS) {
			if (hint.literal) {
				hints.push({ key: hint.literal, description: hint.description });
				continue;
			}
			const bound = keys(hint.id ?? []);
			// Only keys that are bound now (an unbound id has no hint).
			if (!bound.length || bound.some((k) => !k)) continue;
			hints.push({ key: bound.join("/") + (hint.suffix ?? ""), description: hint.description });
		}
		const more = this.#options.keyText("app.tools.expand");
		return {
			place: this.#options.place,
			hints,
			help: more ? `Press ${more} to show full startup help.` : "",
			// pi: quietStartup true hides the startup header (logo, version, hints); --verbose shows it anyway.
			hidden: this.#settings.quietStartup === true && !this.#options.verbose,
			expanded: this.#toolsExpanded,
		};
	}

	#footerData(): FooterData {
		const chat = this.#chat;
		const status = this.#status;
		return {
			cwd: this.#session.cwd,
			branch: this.#session.branch ?? null,
			home: this.#options.home,
			title: this.#session.title,
			usage: status?.conversation,
			cacheHitRate: status?.cacheHitRate ?? null,
			contextTokens: status?.contextTokens ?? null,
			contextUnknown: status?.contextUnknown ?? false,
			autoCompaction: true,
			model: chat?.model ?? null,
			thinkingLevel: chat?.thinkingLevel ?? "off",
			statuses: this.slots.statuses(),
		};
	}
}

/** `alt+up` → `Alt+Up`, as pi writes keys in sentences. */
function capitalizeKeys(text: string): string {
	return text.replace(/(^|[+/])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase());
}

/** pi's showStatus lines replace one another; its warnings and errors are never replaced, nor replace. */
function replaceable(tone: StatusLineData["tone"]): boolean {
	return tone === "status" || tone === "success";
}

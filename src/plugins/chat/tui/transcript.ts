/**
 * The transcript: pi's startup header, the conversation's items and the status lines and blocks shown among
 * them, in a scroll view that follows new output. Older pages load when the top is reached; the reading
 * position is an item and a line within it, so it survives a reload.
 */
import { type Component, Container, ScrollView, type TUI } from "@earendil-works/pi-tui";
import { failureText, type NoticeTone } from "../../../guest/layout.ts";
import type { EntryRenderers } from "../../../guest/registries.ts";
import type { ReadingAnchor } from "../../../guest/snapshot.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ChatEntry } from "../contract.ts";
import { type DisplayItem, sameItem, shownFrom } from "./display-items.ts";
import { EntryHistory } from "./entry-history.ts";
import type { ItemView } from "./item-factory.ts";

const OLDER_WATCH_MS = 200;

/**
 * A status line or block shown after the entries that existed when it was said; `PENDING` while what it
 * follows is still coming (a session being opened, an answer being written), as pi adds it after those.
 */
interface Notice {
	readonly item: Extract<DisplayItem, { kind: "status" | "block" }>;
	afterSeq: number;
}

const PENDING = Number.POSITIVE_INFINITY;

export interface TranscriptOptions {
	/** The renderer on: in regular mode the terminal's scrollback scrolls, not the view. */
	readonly tui: TUI;
	readonly theme: ThemeRef;
	/** What stays at the top: pi's header and the plugins' header slot. */
	readonly top: readonly Component[];
	readonly entryRenderers: EntryRenderers;
	create(item: DisplayItem): ItemView;
	/** Older committed entries, before `beforeSeq` (the chat's `page`). */
	loadOlder(beforeSeq: number): Promise<{ entries: ChatEntry[]; more: boolean }>;
	/** Older entries arrived: the screen shows them. */
	changed(): void;
	notice(text: string, tone: NoticeTone): void;
}

export class Transcript {
	readonly view: ScrollView;
	readonly #options: TranscriptOptions;
	readonly #document = new Container();
	readonly #items = new Map<string, { item: DisplayItem; view: ItemView }>();
	#order: string[] = [];
	#notices: Notice[] = [];
	#noticeCount = 0;
	#history = new EntryHistory();
	/** Another session was opened and its conversation has not arrived yet. */
	#opening = false;
	/** Something is being written (an answer, a command's output): notices go after it. */
	#busy = false;
	#hasOlder = false;
	#loadingOlder = false;
	#olderWatch: ReturnType<typeof setInterval> | undefined;

	constructor(options: TranscriptOptions) {
		this.#options = options;
		this.#restack();
		const t = () => options.theme.current;
		this.view = new ScrollView(this.#document, {
			follow: "end",
			primary: true,
			overscroll: "chain",
			scrollbar: "auto",
			scrollbarTrackStyle: (s) => t().fg("scrollbarTrack", s),
			scrollbarThumbStyle: (s) => t().fg("scrollbarThumb", s),
		});
	}

	/** What the view scrolls over, for the regular renderer to show at its natural height. */
	get document(): Component {
		return this.#document;
	}

	/** The view is on screen and scrolls (fullscreen); in regular mode the terminal's scrollback does. */
	get scrolls(): boolean {
		return this.#options.tui.mode === "fullscreen";
	}

	/** The conversation's entries this screen has: the window and the older pages loaded. */
	get entries(): readonly ChatEntry[] {
		return this.#history.entries;
	}

	/** Changes whenever the entries do (also for another session's). */
	get entriesVersion(): number {
		return this.#history.version;
	}

	/** The conversation's entries, and whether something is still being written after them. */
	merge(entries: readonly ChatEntry[], busy = false): void {
		this.#history.merge(entries);
		this.#opening = false;
		this.#busy = busy;
		if (busy) return;
		// What was pending now follows what arrived.
		const last = this.#history.last?.seq ?? 0;
		for (const notice of this.#notices) if (notice.afterSeq === PENDING) notice.afterSeq = last;
	}

	#noticeSeq(): number {
		return this.#opening || this.#busy ? PENDING : (this.#history.last?.seq ?? 0);
	}

	/**
	 * A status line; one that follows another with nothing between replaces it, as pi's showStatus does.
	 * Warnings and errors are pi's showWarning and showError: each stays, and none replaces one.
	 */
	notice(text: string, tone: NoticeTone): void {
		const afterSeq = this.#noticeSeq();
		const last = this.#notices.at(-1);
		const item = last?.item;
		if (
			item?.kind === "status" &&
			replaceable(tone) &&
			replaceable(item.data.tone) &&
			last?.afterSeq === afterSeq &&
			this.#order.at(-1) === item.key
		) {
			this.#notices[this.#notices.length - 1] = { item: { ...item, data: { text, tone } }, afterSeq };
		} else {
			this.#notices.push({
				item: { key: `notice:${++this.#noticeCount}`, kind: "status", data: { text, tone } },
				afterSeq,
			});
		}
	}

	/** A block of help after what is there (pi's /hotkeys); the view goes to it. */
	block(title: string, markdown: string): void {
		const afterSeq = this.#noticeSeq();
		this.#notices.push({
			item: { key: `notice:${++this.#noticeCount}`, kind: "block", data: { title, markdown } },
			afterSeq,
		});
		this.view.scrollToEnd();
	}

	/** Shows the conversation's items with the notices among them; a plugin's renderer draws its kind of entry. */
	show(items: readonly DisplayItem[]): void {
		const merged: DisplayItem[] = [];
		let noticeAt = 0;
		const flush = (beforeSeq: number) => {
			while (noticeAt < this.#notices.length && this.#notices[noticeAt]!.afterSeq < beforeSeq) {
				merged.push(this.#notices[noticeAt++]!.item);
			}
		};
		const renderers = this.#options.entryRenderers;
		for (const item of items) {
			flush(item.seq ?? Number.POSITIVE_INFINITY);
			const entry = item.source?.entry;
			if (entry && (entry.kind === "plugin" || renderers.has(entry.kind))) {
				// The transcript's own drawing stays, for when the plugins' renderers decline this entry.
				const fallback = item.kind === "custom" ? undefined : item;
				merged.push({
					key: item.key,
					kind: "custom",
					data: { entry, version: renderers.version, ...(fallback ? { fallback } : {}) },
					seq: item.seq,
				});
			} else merged.push(item);
		}
		for (const notice of this.#notices.slice(noticeAt)) merged.push(notice.item);
		this.#reconcile(merged);
	}

	/** Older entries exist on the server: the top is watched for (see `#setHasOlder`). */
	setHasOlder(more: boolean): void {
		this.#hasOlder = more;
		if (more && !this.#olderWatch) this.#olderWatch = setInterval(() => void this.maybeLoadOlder(), OLDER_WATCH_MS);
		if (!more && this.#olderWatch) {
			clearInterval(this.#olderWatch);
			this.#olderWatch = undefined;
		}
	}

	/** Scrolled to the top with more before it: the next page is loaded above, keeping the reading position. */
	async maybeLoadOlder(): Promise<void> {
		// In regular mode the view is not on screen: its top is never reached.
		if (!this.#hasOlder || this.#loadingOlder || !this.scrolls || this.view.scrollTop > 0) return;
		const first = this.#history.first;
		if (!first) return;
		// What a compaction summarized is not shown (pi): no need to load it.
		if (first.seq <= shownFrom(this.#history.entries)) return this.setHasOlder(false);
		this.#loadingOlder = true;
		const { tui } = this.#options;
		try {
			const page = await this.#options.loadOlder(first.seq);
			this.setHasOlder(page.more);
			const width = this.view.getContentWidth(tui.terminal.columns);
			const before = this.#document.render(width).length;
			this.#history.merge(page.entries);
			this.#options.changed();
			const added = this.#document.render(width).length - before;
			if (added > 0) this.view.scrollTo(this.view.scrollTop + added, { disableFollow: true });
			tui.requestRender();
		} catch (error) {
			this.#options.notice(failureText(error), "error");
		} finally {
			this.#loadingOlder = false;
		}
	}

	/** Empties the transcript for another session (the header and its slot stay). */
	reset(): void {
		this.#history = new EntryHistory();
		this.#notices = [];
		this.#opening = true;
		this.#busy = false;
		this.#items.clear();
		this.#order = [];
		this.setHasOlder(false);
		this.#restack();
	}

	/** Everything the view scrolls over, at this width: pi's header and the conversation (the exit transcript). */
	documentLines(width: number): string[] {
		return [...this.#document.render(width)];
	}

	/** Where the person is reading: the item at the top of the view and the line within it; none when following. */
	readingPosition(): ReadingAnchor | undefined {
		if (!this.scrolls || this.view.isFollowingEnd) return undefined;
		const top = this.view.scrollTop;
		const width = this.view.getContentWidth(this.#options.tui.terminal.columns);
		let line = this.#topHeight(width);
		for (const key of this.#order) {
			const height = this.#items.get(key)!.view.component.render(width).length;
			if (top < line + height) return { key, offset: Math.max(0, top - line) };
			line += height;
		}
		return undefined;
	}

	/** Scrolls back to a reading position once its item is on screen (after a reload); false until then. */
	restorePosition(anchor: ReadingAnchor): boolean {
		const { tui } = this.#options;
		if (!this.scrolls) return true;
		const width = this.view.getContentWidth(tui.terminal.columns);
		// The view clamps to the height of its last layout, which may predate this state (or be none):
		// measure it now, so the position is not cut short before the screen renders.
		this.view.updateLayout(this.view.render(tui.terminal.columns).length, this.view.viewportHeight, () =>
			tui.requestRender(),
		);
		let line = this.#topHeight(width);
		for (const key of this.#order) {
			const height = this.#items.get(key)!.view.component.render(width).length;
			if (key === anchor.key) {
				this.view.scrollTo(line + Math.min(anchor.offset, Math.max(0, height - 1)), { disableFollow: true });
				tui.requestRender();
				return true;
			}
			line += height;
		}
		return false;
	}

	dispose(): void {
		if (this.#olderWatch) clearInterval(this.#olderWatch);
	}

	#topHeight(width: number): number {
		return this.#options.top.reduce((sum, component) => sum + component.render(width).length, 0);
	}

	#restack(keys: readonly string[] = []): void {
		this.#document.clear();
		for (const component of this.#options.top) this.#document.addChild(component);
		for (const key of keys) this.#document.addChild(this.#items.get(key)!.view.component);
	}

	/** One item shown already, changed in place (a streamed frame's answer); false when it is not shown as such. */
	update(item: DisplayItem): boolean {
		const existing = this.#items.get(item.key);
		if (!existing || existing.item.kind !== item.kind) return false;
		if (!sameItem(existing.item, item)) existing.view.update(item);
		existing.item = item;
		return true;
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
				if (!sameItem(existing.item, item)) existing.view.update(item);
				existing.item = item;
				continue;
			}
			const adopted = item.kind === "assistant" && item.committed ? finished.shift() : undefined;
			if (adopted) {
				this.#items.delete(adopted[0]);
				adopted[1].view.update(item);
				this.#items.set(item.key, { item, view: adopted[1].view });
				continue;
			}
			this.#items.set(item.key, { item, view: this.#options.create(item) });
		}
		for (const key of [...this.#items.keys()]) if (!wanted.has(key)) this.#items.delete(key);
		if (changedOrder) {
			this.#restack(keys);
			this.#order = keys;
		}
	}
}

/** pi's showStatus lines replace one another; nothing else is replaced (its warnings, errors, ✓ notices, notes). */
function replaceable(tone: NoticeTone): boolean {
	return tone === "status";
}

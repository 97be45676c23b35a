/**
 * The guest's screen arrangement: one screen (a plugin mounts it) fills pi-tui's fullscreen renderer or
 * flows into the terminal's scrollback (regular mode), a selector takes the editor's place in it while open,
 * and the transcript's status lines and blocks are the screen's to show. Plugins reach all of it through
 * `GuestUi`.
 */
import { type Component, Container, type TUI } from "@earendil-works/pi-tui";
import { errorText } from "../protocol/errors.ts";
import type { TuiMode } from "../protocol/preferences.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import type { StatusLineData } from "../ui/transcript/status-line.ts";
import { CommandRefused } from "./access.ts";
import { Slots } from "./registries.ts";

export type NoticeTone = StatusLineData["tone"];

/** The screen a plugin mounts: what it shows, where typing goes, and where status lines and blocks appear. */
export interface GuestScreen {
	/** The fullscreen layout: it fills the terminal's rows. */
	readonly root: Component;
	/** The same content at its natural height, for the regular renderer (the root, if absent). */
	readonly flow?: Component;
	/** Where typing goes while no selector is open (the editor, or a line that takes nothing). */
	inputTarget(): Component;
	notice(text: string, tone: NoticeTone): void;
	block(title: string, markdown: string): void;
	editorText(): string;
	setEditorText(text: string): void;
	/** What pi leaves on the terminal at exit (its fullscreenExitOutput "transcript"), as lines of this width. */
	exitLines?(width: number): string[];
	/** The UI exits: timers stop. */
	dispose?(): void;
}

export interface OpenSelector {
	readonly id: string;
	readonly component: Component;
}

/** What a plugin sees of the screen. */
export interface GuestUi {
	/** pi-tui's renderer, for components that need it (an editor, a scroll view): whichever one is on. */
	readonly tui: TUI;
	readonly theme: ThemeRef;
	/** Plugins' components in named places, and the footer's plugin statuses. */
	readonly slots: Slots;
	/** The selector on screen, if any (its id is the `overlay:<id>` context). */
	readonly selector: OpenSelector | undefined;
	/** Where the mounted screen shows the selector (in place of its editor). */
	readonly selectorSlot: Component;
	showSelector(id: string, component: Component): void;
	closeSelector(): void;
	/** pi-tui's own overlay (its transcript search) is on screen. */
	hasOverlay(): boolean;
	/** A status line in the transcript (pi's showStatus, showWarning, showError). */
	notice(text: string, tone?: NoticeTone): void;
	/**
	 * What failed or was refused, worded one way (`failureNotice`): pi's "Error: …" line for whatever was thrown
	 * (an Error, the server's refusal, a text), and a status line saying who may, for a command the person's
	 * access does not allow.
	 */
	fail(error: unknown): void;
	/** A block of Markdown in the transcript (pi's /hotkeys). */
	block(title: string, markdown: string): void;
	editorText(): string;
	setEditorText(text: string): void;
	/** Typing goes to the screen's input again (after its input changed), unless a selector has it. */
	focusInput(): void;
	requestRender(force?: boolean): void;
	/**
	 * The next frame goes out at once rather than after the frame-rate limit's wait (up to 16 ms): for what the
	 * person is waiting to see, as pi-tui does for a key. For a session's first state, not for streaming.
	 */
	showNow(): void;
	/** The keys bound to an id now (pi's names), and as pi writes them in hints (`ctrl+c`; empty if unbound). */
	keys(id: string): string[];
	keyText(id: string): string;
	/** The keymap changed (the person's bindings, or commands came or went). */
	onKeysChanged(listener: () => void): () => void;
	/** pi's terminal progress (OSC 9;4) while something works. */
	setProgress(active: boolean): void;
	mount(screen: GuestScreen): () => void;
}

/** The wording of what failed: pi's "Error: " and what the error says. */
export function failureText(error: unknown): string {
	return `Error: ${errorText(error)}`;
}

/**
 * How a failure is said: a command the person's access does not allow as pi's status line saying who may use
 * it (as p2 always said it; one such line replaces another), anything else as pi's error line.
 */
export function failureNotice(error: unknown): { text: string; tone: NoticeTone } {
	if (error instanceof CommandRefused) return { text: error.message, tone: "status" };
	return { text: failureText(error), tone: "error" };
}

export interface LayoutOptions {
	readonly tui: TUI;
	readonly theme: ThemeRef;
	keys(id: string): string[];
	keyText(id: string): string;
	setProgress(active: boolean): void;
	/** The screen shows what the person waits for (a session's first state): see `showNow`. */
	shown?(): void;
}

export class Layout implements GuestUi {
	readonly tui: TUI;
	readonly theme: ThemeRef;
	readonly slots: Slots;
	readonly selectorSlot = new Container();
	readonly #options: LayoutOptions;
	readonly #keyListeners = new Set<() => void>();
	#screen: GuestScreen | undefined;
	#selector: OpenSelector | undefined;
	/** What was said before a screen was mounted, shown once one is. */
	#early: { text: string; tone: NoticeTone }[] = [];
	#progress = false;

	constructor(options: LayoutOptions) {
		this.#options = options;
		this.tui = options.tui;
		this.theme = options.theme;
		this.slots = new Slots(() => this.tui.requestRender());
	}

	get selector(): OpenSelector | undefined {
		return this.#selector;
	}

	/** The mounted screen's root for a renderer (empty until a plugin mounts one). */
	root(mode: TuiMode): Component {
		const screen = this.#screen;
		if (!screen) return new Container();
		return mode === "regular" ? (screen.flow ?? screen.root) : screen.root;
	}

	mount(screen: GuestScreen): () => void {
		this.#screen = screen;
		for (const { text, tone } of this.#early.splice(0)) screen.notice(text, tone);
		return () => {
			if (this.#screen === screen) this.#screen = undefined;
		};
	}

	/** A selector takes the editor's place until it closes (pi's selectors). */
	showSelector(id: string, component: Component): void {
		this.selectorSlot.clear();
		this.selectorSlot.addChild(component);
		this.#selector = { id, component };
		this.tui.setFocus(component);
		this.tui.requestRender();
	}

	closeSelector(): void {
		if (!this.#selector) return;
		this.selectorSlot.clear();
		this.#selector = undefined;
		this.tui.setFocus(this.#screen?.inputTarget() ?? null);
		this.tui.requestRender();
	}

	focusInput(): void {
		if (!this.#selector && this.#screen) this.tui.setFocus(this.#screen.inputTarget());
	}

	hasOverlay(): boolean {
		return this.tui.hasOverlay();
	}

	notice(text: string, tone: NoticeTone = "status"): void {
		if (this.#screen) this.#screen.notice(text, tone);
		else this.#early.push({ text, tone });
	}

	fail(error: unknown): void {
		const { text, tone } = failureNotice(error);
		this.notice(text, tone);
	}

	block(title: string, markdown: string): void {
		this.#screen?.block(title, markdown);
	}

	editorText(): string {
		return this.#screen?.editorText() ?? "";
	}

	setEditorText(text: string): void {
		this.#screen?.setEditorText(text);
		this.tui.requestRender();
	}

	requestRender(force?: boolean): void {
		this.tui.requestRender(force);
	}

	showNow(): void {
		this.#options.shown?.();
		// pi-tui's own way to let a key's frame skip the wait; not in its typed surface.
		const immediate: unknown = Reflect.get(this.tui, "requestImmediateRender");
		if (typeof immediate === "function") immediate.call(this.tui);
		else this.tui.requestRender();
	}

	keys(id: string): string[] {
		return this.#options.keys(id);
	}

	keyText(id: string): string {
		return this.#options.keyText(id);
	}

	onKeysChanged(listener: () => void): () => void {
		this.#keyListeners.add(listener);
		return () => this.#keyListeners.delete(listener);
	}

	/** The runtime rebuilt the keymap. */
	keysChanged(): void {
		for (const listener of [...this.#keyListeners]) listener();
	}

	setProgress(active: boolean): void {
		if (active === this.#progress) return;
		this.#progress = active;
		this.#options.setProgress(active);
	}

	/** The mounted screen's exit transcript (none without a screen). */
	exitLines(width: number): string[] {
		return this.#screen?.exitLines?.(width) ?? [];
	}

	dispose(): void {
		this.#screen?.dispose?.();
	}
}

/**
 * pi's two renderers on the bridge terminal, one at a time (pi's tuiMode): fullscreen, pi-tui's TuiAltScreen
 * (the alternate screen, its own scrolling, search and selection), or regular, pi-tui's TuiMainScreen (the
 * screen follows the content into the terminal's scrollback). A switch keeps the focus and the input
 * listeners, and `tui` stays the one object the components hold, whichever renderer is on.
 */
import {
	type Component,
	type Terminal,
	type TUI,
	TuiAltScreen,
	type TuiAltScreenOptions,
	type TuiInputListener,
	TuiMainScreen,
	type TuiMainScreenRenderState,
} from "@earendil-works/pi-tui";
import type { TuiMode } from "../protocol/preferences.ts";
import type { ScrollbackState } from "./snapshot.ts";

/** What pi-tui adds to each line it writes (`applyLineResets`): a line drawn again must not carry it twice. */
const LINE_RESET = "\x1b[0m\x1b]8;;\x07";

export interface RendererOptions {
	readonly terminal: Terminal;
	readonly mode: TuiMode;
	/** The fullscreen renderer's options (its styles, copy on select), each time one is made. */
	fullscreen(): TuiAltScreenOptions;
	/** What each renderer shows: the fullscreen layout, or the regular one's content at its natural height. */
	root(mode: TuiMode): Component;
}

export class Renderer {
	/** The renderer on now, for whoever holds it through a switch. */
	readonly tui: TUI;
	readonly #options: RendererOptions;
	readonly #listeners = new Set<TuiInputListener>();
	#current: TuiAltScreen | TuiMainScreen;
	/** The previous UI's scrollback, drawn unchanged until the screen has what it showed (`release`). */
	#held: Component | undefined;
	/** What the regular renderer left in the scrollback when fullscreen took over: it draws on from it after. */
	#mainScreen: TuiMainScreenRenderState | undefined;
	#started = false;

	constructor(options: RendererOptions) {
		this.#options = options;
		this.#current = this.#create(options.mode);
		this.tui = followCurrent(() => this.#current);
	}

	get mode(): TuiMode {
		return this.#current.mode;
	}

	/** The fullscreen renderer, while it is the one on (its own settings: copy on select, wheel lines). */
	get fullscreen(): TuiAltScreen | undefined {
		return this.#current instanceof TuiAltScreen ? this.#current : undefined;
	}

	/** A listener on every renderer this one switches to. */
	addInputListener(listener: TuiInputListener): () => void {
		this.#listeners.add(listener);
		const off = this.#current.addInputListener(listener);
		return () => {
			this.#listeners.delete(listener);
			off();
			this.#current.removeInputListener(listener);
		};
	}

	/** Shows the mode's root (again, after the screen changed). */
	mount(): void {
		const tui = this.#current;
		if (tui instanceof TuiAltScreen) tui.setLayoutRoot(this.#options.root("fullscreen"));
		else {
			tui.clear();
			tui.addChild(this.#held ?? this.#options.root("regular"));
		}
	}

	start(): void {
		this.#started = true;
		this.#current.start();
	}

	/**
	 * Regular mode, after a reload: the terminal already shows `state` (the previous UI's scrollback). It is
	 * drawn unchanged until `release`, so the first frames write nothing, and then only what differs.
	 */
	resume(state: ScrollbackState): void {
		const tui = this.#current;
		if (!(tui instanceof TuiMainScreen)) return;
		tui.restoreRenderState({
			previousLines: state.lines,
			previousWidth: state.width,
			previousHeight: state.height,
			cursorRow: state.cursorRow,
			hardwareCursorRow: state.hardwareCursorRow,
			maxLinesRendered: state.maxLinesRendered,
			previousViewportTop: state.viewportTop,
		});
		const lines = state.lines.map((line) => (line.endsWith(LINE_RESET) ? line.slice(0, -LINE_RESET.length) : line));
		this.#held = { render: () => lines, invalidate() {} };
		this.mount();
	}

	/** The screen has what the previous UI showed: it is drawn from now on (a no-op unless `resume` held). */
	release(): void {
		if (!this.#held) return;
		this.#held = undefined;
		this.mount();
		this.#current.requestRender();
	}

	/** Regular mode: what this renderer has written into the scrollback, for a successor (reload). */
	scrollback(): ScrollbackState | undefined {
		const tui = this.#current;
		if (!(tui instanceof TuiMainScreen)) return undefined;
		const state = tui.captureRenderState();
		return {
			lines: state.previousLines,
			width: Math.max(0, state.previousWidth),
			height: Math.max(0, state.previousHeight),
			cursorRow: state.cursorRow,
			hardwareCursorRow: state.hardwareCursorRow,
			maxLinesRendered: state.maxLinesRendered,
			viewportTop: state.previousViewportTop,
		};
	}

	/** Writes nothing more until `thaw` (a successor takes over from the scrollback as it is now). */
	freeze(): void {
		if (this.#started) this.#current.stop({ preserveScreen: true });
		this.#started = false;
	}

	thaw(): void {
		if (this.#started) return;
		this.start();
	}

	/**
	 * pi's switch of renderer: the content, focus and listeners move to the other one, which draws from where
	 * this one left the terminal. False while pi-tui's own overlay (search) is open, as pi refuses then.
	 */
	switchTo(mode: TuiMode): boolean {
		const previous = this.#current;
		if (previous.mode === mode) return true;
		if (previous.hasOverlay()) return false;
		const focus = previous.getFocusedComponent();
		if (previous instanceof TuiMainScreen) this.#mainScreen = previous.captureRenderState();
		if (this.#started) previous.stop({ preserveScreen: true });
		previous.setFocus(null);
		previous.clear();
		if (previous instanceof TuiAltScreen) previous.setLayoutRoot(undefined);
		for (const listener of this.#listeners) previous.removeInputListener(listener);
		const next = this.#create(mode);
		next.setShowHardwareCursor(previous.getShowHardwareCursor());
		next.setClearOnShrink(previous.getClearOnShrink());
		// The alternate screen left the normal one as it was: the regular renderer draws on from its lines.
		if (next instanceof TuiMainScreen && this.#mainScreen) next.restoreRenderState(this.#mainScreen);
		this.#held = undefined;
		this.#current = next;
		this.mount();
		for (const listener of this.#listeners) next.addInputListener(listener);
		next.setFocus(focus);
		if (this.#started) next.start();
		return true;
	}

	#create(mode: TuiMode): TuiAltScreen | TuiMainScreen {
		const { terminal } = this.#options;
		return mode === "fullscreen"
			? new TuiAltScreen(terminal, false, undefined, this.#options.fullscreen())
			: new TuiMainScreen(terminal, false);
	}
}

/** A TUI that is whichever renderer is on when it is used (pi-tui's components keep the one they were given). */
function followCurrent(current: () => TUI): TUI {
	const target = Object.create(null) as object;
	return new Proxy(target, {
		get: (_target, key) => {
			const value: unknown = Reflect.get(current(), key);
			if (typeof value !== "function") return value;
			return (...args: unknown[]) => {
				const tui = current();
				return Reflect.apply(Reflect.get(tui, key) as (...a: unknown[]) => unknown, tui, args);
			};
		},
		set: (_target, key, value) => Reflect.set(current(), key, value),
		has: (_target, key) => Reflect.has(current(), key),
	}) as TUI;
}

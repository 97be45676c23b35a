/**
 * The log viewer in the dock: the newest lines of one source (or all), following the tail until the person
 * scrolls up. Tab cycles the sources, `/` searches (Enter keeps the search, Esc clears it), PageUp/PageDown
 * and Home/End move, `f` follows again. Log text is made visible (control characters as symbols).
 */
import { type Component, getKeybindings, matchesKey, truncateToWidth } from "@earendil-works/pi-tui";
import { typedChar, visibleText } from "../../ui/text.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import type { LogLine } from "./contract.ts";

const ROWS = 14;
const ALL = "all";

export interface LogViewerOptions {
	lines(): readonly LogLine[] | undefined;
	/** The source to show first (`/logs <source>`); all when absent. */
	readonly source?: string;
	close(): void;
}

function clock(time: number): string {
	const d = new Date(time);
	const two = (n: number) => String(n).padStart(2, "0");
	return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export class LogViewer implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: LogViewerOptions;
	#source: string;
	/** The seq of the bottom line while scrolled up (new lines then leave the view where it is); undefined follows. */
	#anchor: number | undefined;
	#search = "";
	#typing: string | undefined;

	constructor(theme: ThemeRef, options: LogViewerOptions) {
		this.#theme = theme;
		this.#options = options;
		this.#source = options.source ?? ALL;
	}

	invalidate(): void {}

	get source(): string {
		return this.#source;
	}

	sources(): string[] {
		const seen = new Set<string>();
		for (const line of this.#options.lines() ?? []) seen.add(line.source);
		if (this.#source !== ALL) seen.add(this.#source);
		return [ALL, ...[...seen].sort((a, b) => (a === "server" ? -1 : b === "server" ? 1 : a.localeCompare(b)))];
	}

	#shown(): LogLine[] {
		const search = this.#search.toLowerCase();
		return (this.#options.lines() ?? []).filter(
			(l) => (this.#source === ALL || l.source === this.#source) && (!search || l.text.toLowerCase().includes(search)),
		);
	}

	/** Where the view ends in `shown`: the tail, or just after the anchored line. */
	#end(shown: readonly LogLine[]): number {
		const anchor = this.#anchor;
		if (anchor === undefined) return shown.length;
		let end = 0;
		while (end < shown.length && (shown[end]?.seq ?? 0) <= anchor) end++;
		return Math.max(Math.min(ROWS, shown.length), end);
	}

	render(width: number): string[] {
		const t = this.#theme.current;
		const shown = this.#shown();
		const end = this.#end(shown);
		const below = shown.length - end;
		const rows = shown.slice(Math.max(0, end - ROWS), end).map((l) => {
			const level =
				l.level === "error"
					? t.fg("error", "ERROR")
					: l.level === "warn"
						? t.fg("warning", "WARN ")
						: t.fg("dim", l.level === "info" ? "info " : "debug");
			const source = this.#source === ALL ? `${t.fg("muted", visibleText(l.source, false))} ` : "";
			return truncateToWidth(
				` ${t.fg("dim", clock(l.time))} ${level} ${source}${visibleText(l.text, false)}`,
				width,
				"…",
			);
		});
		const title = ` Logs · ${visibleText(this.#source, false)}${this.#search ? ` · "${visibleText(this.#search, false)}"` : ""}`;
		const state = this.#anchor === undefined ? "following" : `${below} ${below === 1 ? "line" : "lines"} below`;
		const lines = [t.rule(width), `${t.bold(title)} ${t.fg("dim", `(${shown.length} lines, ${state})`)}`];
		if (!this.#options.lines()) lines.push(t.fg("dim", "  Loading…"));
		else if (!shown.length) lines.push(t.fg("dim", this.#search ? "  No line matches." : "  Nothing logged yet."));
		lines.push(...rows);
		lines.push(
			this.#typing !== undefined
				? `${t.fg("accent", " search: ")}${visibleText(this.#typing, false)}▏`
				: t.fg("dim", " tab source · / search · pgup/pgdn/home/end scroll · f follow · esc close"),
		);
		lines.push(t.rule(width));
		return lines.map((line) => truncateToWidth(line, width, "…"));
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (this.#typing !== undefined) {
			if (kb.matches(data, "tui.select.cancel")) this.#typing = undefined;
			else if (kb.matches(data, "tui.select.confirm")) {
				this.#search = this.#typing;
				this.#typing = undefined;
				this.#anchor = undefined;
			} else if (matchesKey(data, "backspace")) this.#typing = this.#typing.slice(0, -1);
			else {
				const char = typedChar(data);
				if (char) this.#typing += char;
			}
			return;
		}
		if (kb.matches(data, "tui.select.cancel")) {
			if (this.#search) {
				this.#search = "";
				return;
			}
			return this.#options.close();
		}
		if (kb.matches(data, "tui.input.tab") || matchesKey(data, "tab")) {
			const sources = this.sources();
			this.#source = sources[(sources.indexOf(this.#source) + 1) % sources.length] ?? ALL;
			this.#anchor = undefined;
			return;
		}
		if (data === "/") {
			this.#typing = this.#search;
			return;
		}
		if (data === "f" || matchesKey(data, "end")) {
			this.#anchor = undefined;
			return;
		}
		const shown = this.#shown();
		const end = this.#end(shown);
		const move = (to: number) => {
			const bottom = Math.max(Math.min(ROWS, shown.length), Math.min(shown.length, to));
			this.#anchor = bottom >= shown.length ? undefined : shown[bottom - 1]?.seq;
		};
		if (matchesKey(data, "pageUp")) move(end - (ROWS - 1));
		else if (matchesKey(data, "pageDown")) move(end + (ROWS - 1));
		else if (matchesKey(data, "home")) move(ROWS);
		else if (kb.matches(data, "tui.select.up")) move(end - 1);
		else if (kb.matches(data, "tui.select.down")) move(end + 1);
	}
}

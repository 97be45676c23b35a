/**
 * The launcher's own file picker (design: the consent screen): this computer's directories, drawn by the launcher on a reset
 * terminal under the same bar as its consent screen. Typing filters, Enter opens a directory or picks a file,
 * Backspace on an empty filter goes up, Esc cancels. The worker sees nothing of it, not even the names.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { matchesKey } from "../protocol/pi-tui-parts.ts";
import { visibleControls } from "./visible-text.ts";

const RESET = "\x1b[?2026l\x1b[0m\x1b[r\x1b[?25h\x1b[0 q\x1b[2J\x1b[H";
const MAX_ENTRIES = 2000;

interface Entry {
	readonly name: string;
	readonly dir: boolean;
}

function list(dir: string): Entry[] {
	let names: string[];
	try {
		names = readdirSync(dir).slice(0, MAX_ENTRIES);
	} catch {
		return [];
	}
	const entries = names.map((name) => {
		try {
			return { name, dir: statSync(join(dir, name)).isDirectory() };
		} catch {
			return { name, dir: false };
		}
	});
	return entries.sort((a, b) => Number(b.dir) - Number(a.dir) || a.name.localeCompare(b.name));
}

export class FilePicker {
	readonly #write: (data: string) => void;
	readonly #size: () => { columns: number; rows: number };
	#state:
		| { dir: string; entries: Entry[]; filter: string; selected: number; done: (path?: string) => void }
		| undefined;

	constructor(write: (data: string) => void, size: () => { columns: number; rows: number }) {
		this.#write = write;
		this.#size = size;
	}

	get active(): boolean {
		return this.#state !== undefined;
	}

	/** Resolves with the chosen file's path, or undefined when the person cancelled. */
	pick(start: string): Promise<string | undefined> {
		if (this.#state) return Promise.resolve(undefined);
		return new Promise((resolve) => {
			this.#state = { dir: start, entries: list(start), filter: "", selected: 0, done: resolve };
			this.draw();
		});
	}

	cancel(): void {
		this.#finish(undefined);
	}

	#shown(): Entry[] {
		const s = this.#state;
		if (!s) return [];
		const f = s.filter.toLowerCase();
		return f ? s.entries.filter((e) => e.name.toLowerCase().includes(f)) : s.entries;
	}

	input(data: string): void {
		const s = this.#state;
		if (!s) return;
		const shown = this.#shown();
		if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) return this.#finish(undefined);
		if (matchesKey(data, "up")) s.selected = Math.max(0, s.selected - 1);
		else if (matchesKey(data, "down")) s.selected = Math.min(shown.length - 1, s.selected + 1);
		else if (matchesKey(data, "backspace")) {
			if (s.filter) s.filter = s.filter.slice(0, -1);
			else this.#open(dirname(s.dir));
		} else if (matchesKey(data, "enter")) {
			const entry = shown[s.selected];
			if (!entry) return;
			const path = join(s.dir, entry.name);
			if (entry.dir) this.#open(path);
			else return this.#finish(path);
		} else if (data.length === 1 && data >= " " && data !== "\x7f") {
			s.filter += data;
			s.selected = 0;
		} else return;
		this.draw();
	}

	#open(dir: string): void {
		const s = this.#state;
		if (!s) return;
		s.dir = dir;
		s.entries = list(dir);
		s.filter = "";
		s.selected = 0;
	}

	draw(): void {
		const s = this.#state;
		if (!s) return;
		const { columns, rows } = this.#size();
		const fit = (text: string) => visibleControls(text).slice(0, Math.max(1, columns - 1));
		const shown = this.#shown();
		const head = [
			`\x1b[7m${fit(" p2 launcher · on this computer · not the server's screen ").padEnd(columns)}\x1b[0m`,
			"",
			fit("Choose a file to send (nothing is sent until you confirm on the next screen)"),
			fit(`In: ${s.dir}`),
			fit(`Filter: ${s.filter}`),
			"",
		];
		const foot = ["", fit("Enter: open or choose · Backspace: up · type to filter · Escape: cancel")];
		const room = Math.max(1, rows - head.length - foot.length);
		const start = Math.max(0, Math.min(s.selected - Math.floor(room / 2), shown.length - room));
		const body = shown.slice(start, start + room).map((e, i) => {
			const line = fit(`${start + i === s.selected ? "› " : "  "}${e.name}${e.dir ? "/" : ""}`);
			return start + i === s.selected ? `\x1b[7m${line}\x1b[0m` : line;
		});
		if (!shown.length) body.push("  (nothing here)");
		this.#write(RESET + [...head, ...body, ...foot].join("\r\n"));
	}

	#finish(path: string | undefined): void {
		const s = this.#state;
		this.#state = undefined;
		this.#write("\x1b[0m\x1b[2J\x1b[H");
		s?.done(path);
	}
}

/**
 * /keybindings: every command and pi-tui's editor and transcript ids with their keys. Enter captures the
 * next key, Backspace unbinds, Delete restores the default; each is one `prefs.json` change the launcher
 * asks about. The launcher's own ids are listed and not editable here.
 */
import {
	type Component,
	fuzzyFilter,
	getKeybindings,
	parseKey,
	type SelectItem,
	SelectList,
	truncateToWidth,
} from "@earendil-works/pi-tui";
import { isPrivilegedId } from "../protocol/keybindings.ts";
import type { PrefsPatch } from "../protocol/preferences.ts";
import { typedChar } from "../ui/text.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";

export interface KeybindingRow {
	readonly id: string;
	readonly title: string;
	readonly keys: string;
}

export interface KeybindingsSelectorOptions {
	readonly theme: ThemeRef;
	readonly rows: readonly KeybindingRow[];
	save(patch: PrefsPatch): void;
	close(): void;
}

export class KeybindingsSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: KeybindingsSelectorOptions;
	#filter = "";
	#list: SelectList;
	#capturing: KeybindingRow | undefined;
	#message = "";

	constructor(options: KeybindingsSelectorOptions) {
		this.#options = options;
		this.#list = this.#build();
	}

	#build(): SelectList {
		const items: SelectItem[] = this.#options.rows.map((row) => ({
			value: row.id,
			label: row.title,
			description: `${row.keys || "(unbound)"}${isPrivilegedId(row.id) ? " · launcher" : ""}  ${row.id}`,
		}));
		const matched = this.#filter ? fuzzyFilter(items, this.#filter, (i) => `${i.label} ${i.description ?? ""}`) : items;
		const list = new SelectList(matched, 12, this.#options.theme.selectListTheme(), {
			minPrimaryColumnWidth: 20,
			maxPrimaryColumnWidth: 44,
		});
		list.onSelect = (item) => this.#startCapture(item.value);
		list.onCancel = () => this.#options.close();
		return list;
	}

	/** Puts the cursor on an id (after a save, the list opens where it was). */
	select(id: string): void {
		const at = this.#options.rows.findIndex((r) => r.id === id);
		if (at >= 0) this.#list.setSelectedIndex(at);
	}

	#row(id: string | undefined): KeybindingRow | undefined {
		return this.#options.rows.find((r) => r.id === id);
	}

	#editable(row: KeybindingRow): boolean {
		if (!isPrivilegedId(row.id)) return true;
		this.#message = `${row.title}: the launcher's key; change it in ~/.pi/agent/keybindings.json`;
		return false;
	}

	#startCapture(id: string): void {
		const row = this.#row(id);
		if (!row || !this.#editable(row)) return;
		this.#capturing = row;
		this.#message = "";
	}

	invalidate(): void {
		this.#list.invalidate();
	}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const border = t.rule(width);
		const query = this.#filter ? t.fg("text", ` ${this.#filter}`) : t.fg("dim", " type to filter");
		const status = this.#capturing
			? t.fg("accent", ` Press the new key for ${this.#capturing.title} (Esc cancels)`)
			: this.#message
				? t.fg("warning", ` ${this.#message}`)
				: t.fg("dim", " Enter rebind · Backspace unbind · Delete default · Esc close");
		return [
			border,
			truncateToWidth(` ${t.bold(t.fg("accent", "Keybindings"))}${query}`, width, ""),
			...this.#list.render(width),
			truncateToWidth(status, width, ""),
			border,
		];
	}

	handleInput(data: string): void {
		const capturing = this.#capturing;
		if (capturing) {
			this.#capturing = undefined;
			const key = parseKey(data);
			if (!key || key === "escape") return;
			this.#options.save({ keybindings: { [capturing.id]: [key] } });
			return;
		}
		const kb = getKeybindings();
		const selected = this.#row(this.#list.getSelectedItem()?.value);
		if (kb.matches(data, "tui.editor.deleteCharBackward")) {
			if (this.#filter) {
				this.#filter = this.#filter.slice(0, -1);
				this.#list = this.#build();
			} else if (selected && this.#editable(selected)) this.#options.save({ keybindings: { [selected.id]: [] } });
			return;
		}
		if (kb.matches(data, "tui.editor.deleteCharForward")) {
			if (selected && this.#editable(selected)) this.#options.save({ keybindings: { [selected.id]: null } });
			return;
		}
		const printable = typedChar(data);
		if (printable) {
			this.#filter += printable;
			this.#list = this.#build();
			return;
		}
		this.#message = "";
		this.#list.handleInput(data);
	}
}

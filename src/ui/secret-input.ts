import { type Component, getKeybindings, truncateToWidth } from "@earendil-works/pi-tui";
import { typedChar } from "./text.ts";

/**
 * A one-line input for a secret (an API key): every character is drawn as `•`, nothing is kept for undo or
 * yank, and the value leaves only through `onSubmit`. It is never put in the editor, its history or a snapshot.
 */
export class SecretInput implements Component {
	focused = false;
	onSubmit?: (value: string) => void;
	onEscape?: () => void;
	#value = "";
	#pasting = false;

	get length(): number {
		return this.#value.length;
	}

	clear(): void {
		this.#value = "";
	}

	invalidate(): void {}

	render(width: number): string[] {
		const dots = "•".repeat(Math.min(this.#value.length, 64));
		return [
			truncateToWidth(
				`> ${dots}${this.#value.length > 64 ? "…" : ""}${this.focused ? "\x1b[7m \x1b[27m" : ""}`,
				width,
				"",
			),
		];
	}

	handleInput(data: string): void {
		// Bracketed paste: the text between the markers, control characters dropped.
		if (data.includes("\x1b[200~") || this.#pasting) {
			let text = data;
			if (text.includes("\x1b[200~")) {
				this.#pasting = true;
				text = text.slice(text.indexOf("\x1b[200~") + 6);
			}
			const end = text.indexOf("\x1b[201~");
			if (end >= 0) {
				this.#pasting = false;
				text = text.slice(0, end);
			}
			this.#value += text.replace(/[\x00-\x1f\x7f]/g, "");
			return;
		}
		const kb = getKeybindings();
		if (kb.matches(data, "tui.input.submit")) {
			const value = this.#value;
			this.#value = "";
			this.onSubmit?.(value);
			return;
		}
		if (kb.matches(data, "tui.select.cancel")) {
			this.#value = "";
			this.onEscape?.();
			return;
		}
		if (kb.matches(data, "tui.editor.deleteCharBackward")) {
			this.#value = this.#value.slice(0, -1);
			return;
		}
		if (kb.matches(data, "tui.editor.deleteToLineStart") || kb.matches(data, "tui.editor.deleteWordBackward")) {
			this.#value = "";
			return;
		}
		const printable = typedChar(data);
		if (printable) this.#value += printable;
	}
}

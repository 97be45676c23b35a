/**
 * The directory prompt of /cd and /envs: where the session goes, as `path` on one environment, with the move's
 * note above the input (Enter confirms it), the environment's error under it, Tab for the next environment
 * when there is a choice, and Esc to move nothing.
 */
import {
	type Component,
	getKeybindings,
	Input,
	matchesKey,
	truncateToWidth,
	wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
import { visibleText } from "./text.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

export interface DirectoryPromptOptions {
	readonly theme: ThemeRef;
	/** The environment the input is on (its display name). */
	env(): string;
	/** Above the input (the move's note), or null. */
	note(): string | null;
	/** What Enter does with the typed path; a rejection shows its message under the input. */
	submit(path: string): Promise<void>;
	/** Tab: the next environment, with the path to prefill there (null: no choice of environment). */
	nextEnv?(): Promise<string> | null;
	cancel(): void;
	/** After an answer came (the screen shows it). */
	requestRender(): void;
}

export class DirectoryPrompt implements Component {
	readonly capturesViewportInput = true;
	readonly #options: DirectoryPromptOptions;
	readonly #input = new Input();
	#error: string | null = null;
	#busy = false;

	constructor(options: DirectoryPromptOptions, value: string) {
		this.#options = options;
		this.#input.focused = true;
		this.fill(value);
	}

	/** Puts `value` in the input with the cursor at its end (typed in: setValue leaves the cursor at 0). */
	fill(value: string): void {
		this.#input.setValue("");
		for (const char of value) this.#input.handleInput(char);
	}

	get value(): string {
		return this.#input.getValue();
	}

	showError(message: string | null): void {
		this.#error = message;
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const pad = (text: string) => wrapTextWithAnsi(text, Math.max(1, width - 2)).map((line) => ` ${line}`);
		const lines = [
			t.rule(width),
			truncateToWidth(
				` ${t.fg("accent", t.bold(`Directory on ${visibleText(this.#options.env(), false)}`))}`,
				width,
				"",
			),
		];
		const note = this.#options.note();
		if (note) lines.push(...pad(t.fg("warning", visibleText(note, false))));
		lines.push(...this.#input.render(width - 1).map((line) => ` ${line}`));
		if (this.#error) lines.push(...pad(t.fg("error", visibleText(this.#error, false))));
		const tab = this.#options.nextEnv ? " · tab next environment" : "";
		lines.push(
			t.fg("dim", ` ${this.#busy ? "Checking…" : `enter ${note ? "move" : "go"}${tab} · esc cancel`}`),
			t.rule(width),
		);
		return lines;
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (kb.matches(data, "tui.select.cancel")) return this.#options.cancel();
		if (this.#busy) return;
		if (matchesKey(data, "tab") && this.#options.nextEnv) {
			const next = this.#options.nextEnv();
			if (next) {
				this.#busy = true;
				next.then(
					(path) => {
						this.#busy = false;
						this.#error = null;
						this.fill(path);
						this.#options.requestRender();
					},
					(error: unknown) => {
						this.#busy = false;
						this.#error = error instanceof Error ? error.message : String(error);
						this.#options.requestRender();
					},
				);
			}
			return;
		}
		if (kb.matches(data, "tui.select.confirm") || data === "\r") {
			const path = this.value.trim();
			if (!path) return;
			this.#busy = true;
			this.#error = null;
			this.#options.submit(path).then(
				() => {
					this.#busy = false;
					this.#options.requestRender();
				},
				(error: unknown) => {
					this.#busy = false;
					this.#error = error instanceof Error ? error.message : String(error);
					this.#options.requestRender();
				},
			);
			return;
		}
		this.#input.handleInput(data);
	}
}

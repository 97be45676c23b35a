/**
 * pi's login dialog, driven by the server's flow: the sign-in URL and device codes as text (opening a browser
 * or copying is the launcher's, with its own consent), progress, and the flow's question in an input that
 * masks a secret and never shows an answer back. Esc cancels the flow on the server.
 */
import { type Component, getKeybindings, Input, truncateToWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../guest/keymap.ts";
import { SecretInput } from "../../ui/secret-input.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import type { LoginFlow, LoginPrompt } from "./contract.ts";

export interface LoginDialogOptions {
	readonly theme: ThemeRef;
	readonly providerName: string;
	keys(id: string): string[];
	answer(prompt: LoginPrompt, value: string): void;
	cancel(): void;
	/** A sign-in address arrived: offer to open it (the launcher asks the person). */
	openUrl(url: string): void;
	copy(url: string): void;
}

export class LoginDialog implements Component {
	readonly capturesViewportInput = true;
	readonly #options: LoginDialogOptions;
	#flow: LoginFlow | undefined;
	#input: { prompt: LoginPrompt; field: Input | SecretInput; selected: number } | undefined;
	/** Shown after an answer instead of the answer itself. */
	#answered = 0;
	/** The sign-in address already offered to the browser. */
	#opened: string | undefined;

	constructor(options: LoginDialogOptions) {
		this.#options = options;
	}

	/** The server's flow changed. A new question gets a fresh input; an answered one goes away. */
	update(flow: LoginFlow): void {
		this.#flow = flow;
		const url = [...flow.events].reverse().find((e) => e.type === "auth_url")?.url;
		if (url && url !== this.#opened && flow.status === "running") {
			this.#opened = url;
			this.#options.openUrl(url);
		}
		const prompt = flow.prompt;
		if (!prompt) {
			this.#input = undefined;
			return;
		}
		if (this.#input?.prompt.id === prompt.id) return;
		const field = prompt.type === "secret" ? new SecretInput() : new Input();
		field.focused = true;
		field.onSubmit = (value: string) => {
			if (prompt.type === "select") return;
			this.#answered++;
			this.#input = undefined;
			this.#options.answer(prompt, value.trim());
		};
		field.onEscape = () => this.#options.cancel();
		this.#input = { prompt, field, selected: 0 };
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const k = (id: string) => keyText(this.#options.keys(id));
		const pad = (text: string) => wrapTextWithAnsi(text, Math.max(1, width - 2)).map((line) => ` ${line}`);
		const border = t.rule(width);
		const lines = [
			border,
			truncateToWidth(` ${t.fg("accent", t.bold(`Login to ${this.#options.providerName}`))}`, width, ""),
		];
		for (const event of this.#flow?.events ?? []) {
			lines.push("");
			if (event.type === "auth_url") {
				lines.push(...pad(t.fg("text", "Open this URL in your browser to sign in:")));
				lines.push(...pad(t.fg("accent", event.url)));
				lines.push(...pad(t.fg("dim", `(${k("app.message.copy")} to copy it)`)));
				if (event.instructions) lines.push("", ...pad(t.fg("warning", event.instructions)));
			} else if (event.type === "device_code") {
				lines.push(...pad(t.fg("text", `Open ${event.verificationUri} and enter the code:`)));
				lines.push(...pad(t.bold(t.fg("accent", event.userCode))));
				if (event.expiresInSeconds)
					lines.push(...pad(t.fg("dim", `The code expires in ${Math.round(event.expiresInSeconds / 60)} min.`)));
			} else if (event.type === "progress") {
				lines.push(...pad(t.fg("dim", event.message)));
			} else {
				lines.push(...pad(t.fg("text", event.message)));
				for (const link of event.links ?? [])
					lines.push(...pad(t.fg("accent", link.label ? `${link.label}: ${link.url}` : link.url)));
			}
		}
		if (this.#answered) lines.push("", ...pad(t.fg("dim", "Answer sent.")));
		const input = this.#input;
		if (input) {
			const { prompt } = input;
			lines.push("", ...pad(t.fg(prompt.type === "manual_code" ? "dim" : "text", prompt.message)));
			if (prompt.placeholder) lines.push(...pad(t.fg("dim", `e.g., ${prompt.placeholder}`)));
			if (prompt.type === "select") {
				for (const [i, option] of (prompt.options ?? []).entries()) {
					const on = i === input.selected;
					lines.push(
						truncateToWidth(
							` ${on ? t.fg("accent", "→ ") : "  "}${on ? t.fg("accent", option.label) : option.label}${option.description ? t.fg("muted", `  ${option.description}`) : ""}`,
							width,
							"",
						),
					);
				}
			} else lines.push(...input.field.render(width - 1).map((line) => ` ${line}`));
			lines.push(
				...pad(
					`(${t.fg("dim", k("tui.select.cancel"))}${t.fg("muted", " to cancel, ")}${t.fg("dim", k("tui.select.confirm"))}${t.fg("muted", " to submit")})`,
				),
			);
		} else if (this.#flow?.status === "running") {
			lines.push("", ...pad(`(${t.fg("dim", k("tui.select.cancel"))}${t.fg("muted", " to cancel")})`));
		}
		lines.push(border);
		return lines;
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (this.#opened && matchesId(data, "app.message.copy")) return this.#options.copy(this.#opened);
		const input = this.#input;
		if (!input) {
			if (kb.matches(data, "tui.select.cancel")) this.#options.cancel();
			return;
		}
		if (input.prompt.type === "select") {
			const options = input.prompt.options ?? [];
			if (kb.matches(data, "tui.select.cancel")) this.#options.cancel();
			else if (kb.matches(data, "tui.select.up")) input.selected = Math.max(0, input.selected - 1);
			else if (kb.matches(data, "tui.select.down")) input.selected = Math.min(options.length - 1, input.selected + 1);
			else if (kb.matches(data, "tui.select.confirm")) {
				const option = options[input.selected];
				if (!option) return;
				this.#input = undefined;
				this.#answered++;
				this.#options.answer(input.prompt, option.id);
			}
			return;
		}
		input.field.handleInput(data);
	}
}

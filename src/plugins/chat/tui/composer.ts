/**
 * What the person writes: pi's editor with its completions, the files attached to the next message, and
 * what Enter does with the text (a slash command, a `!` command, or a message that waits while the
 * connection is down). Nothing is lost: refused text goes back into the editor (or, as pi does when no model
 * can answer, stays in the editor's history).
 */
import type { TUI } from "@earendil-works/pi-tui";
import { CommandRefused } from "../../../guest/access.ts";
import { type CommandRegistry, parseSlash, SlashAutocomplete } from "../../../guest/commands.ts";
import { type Completions, EditorCompletion } from "../../../guest/completions.ts";
import { failureNotice, failureText, type NoticeTone } from "../../../guest/layout.ts";
import type { ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import { ChatEditor } from "../../../ui/chat-editor.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { QueueMode } from "../contract.ts";

export interface AttachedFile {
	readonly id: string;
	readonly name: string;
	readonly size: number;
}

export interface ComposerOptions {
	readonly tui: TUI;
	readonly theme: ThemeRef;
	readonly draft: string;
	readonly commands: CommandRegistry;
	readonly completions: Completions;
	readonly paddingX: number;
	readonly autocompleteMaxVisible: number;
	/** The thinking level the editor's border shows (none for a model without reasoning). */
	level(): ThinkingLevel | undefined;
	/** Sends a message (with attached files' ids); resolves when the server took it, rejects with the reason. */
	send(text: string, mode: QueueMode, attachments: string[]): Promise<void>;
	/** pi's `!cmd` (with `includeInContext`) and `!!cmd`. */
	shell(command: string, includeInContext: boolean): Promise<void>;
	notice(text: string, tone: NoticeTone): void;
	/** No model can answer in this conversation: pi clears such a message (it stays in the editor's history). */
	noModel(): boolean;
	/** What the dock shows changed (texts being sent, attached files). */
	changed(): void;
}

export class Composer {
	readonly editor: ChatEditor;
	readonly #options: ComposerOptions;
	#attachments: AttachedFile[] = [];
	/** Texts sent but not yet taken by the server (held while the connection is down). */
	readonly #sending: string[] = [];
	readonly #offCompletions: () => void;

	constructor(options: ComposerOptions) {
		this.#options = options;
		this.editor = new ChatEditor(options.tui, options.theme, options.level, {
			paddingX: options.paddingX,
			autocompleteMaxVisible: options.autocompleteMaxVisible,
		});
		this.editor.setText(options.draft);
		this.editor.onSubmit = (text) => this.submit(text, "steer");
		const completion = () =>
			this.editor.setAutocompleteProvider(
				new EditorCompletion(new SlashAutocomplete(options.commands), options.completions),
			);
		completion();
		// A plugin's source brings its own trigger characters (`@`): the editor takes them again.
		this.#offCompletions = options.completions.onChange(completion);
	}

	dispose(): void {
		this.#offCompletions();
	}

	get attachments(): readonly AttachedFile[] {
		return this.#attachments;
	}

	get sending(): readonly string[] {
		return this.#sending;
	}

	/** A file for the next message (uploaded by the launcher; only its id, name and size are here). */
	attach(file: AttachedFile): void {
		this.#attachments = [...this.#attachments, file];
		this.#options.changed();
	}

	/** Takes back the last attached file, or all of them. */
	detach(all = false): AttachedFile[] {
		const removed = all ? this.#attachments : this.#attachments.slice(-1);
		this.#attachments = all ? [] : this.#attachments.slice(0, -1);
		this.#options.changed();
		return removed;
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
			this.#options.commands.invoke(command, slash.args).catch((error: unknown) => {
				// What failed comes back to the editor; a command the person may not use is only said.
				if (!(error instanceof CommandRefused)) this.editor.setText(text);
				const { text: said, tone } = failureNotice(error);
				this.#options.notice(said, tone);
			});
			return;
		}
		// pi's bash mode: `!cmd` runs the command and the model reads it; `!!cmd` keeps it out of the context.
		const bang = /^!(!?)([\s\S]*)$/.exec(trimmed);
		if (bang && !this.#attachments.length) {
			const command = bang[2]!.trim();
			if (!command) return;
			this.#options.shell(command, bang[1] !== "!").catch((error: unknown) => {
				this.#putBack(text);
				this.#options.notice(failureText(error), "error");
			});
			return;
		}
		const files = this.#attachments;
		this.#attachments = [];
		this.#sending.push(text);
		this.#options.changed();
		const done = () => {
			const at = this.#sending.indexOf(text);
			if (at >= 0) this.#sending.splice(at, 1);
			this.#options.changed();
		};
		// A plugin's `/name args` (a prompt template, `/skill:`) is sent as the server expanded it.
		const expander = this.#options.commands.expanderFor(trimmed);
		const message = expander ? expander.expand(trimmed) : Promise.resolve(text);
		message
			.then((sent) =>
				this.#options.send(
					sent,
					mode,
					files.map((f) => f.id),
				),
			)
			.then(done, (error: unknown) => {
				done();
				// Nothing is lost: the text goes back into the editor, ahead of what was typed since, and the files
				// back to the composer. With no model to answer, pi leaves the editor empty (Up brings the text back).
				if (!this.#options.noModel()) this.#putBack(text);
				this.#attachments = [...files, ...this.#attachments];
				this.#options.notice(failureText(error), "error");
			});
	}

	/** Texts taken back go into the editor, before what is there. */
	#putBack(text: string): void {
		const now = this.editor.getText();
		this.editor.setText(now ? `${text}\n${now}` : text);
	}
}

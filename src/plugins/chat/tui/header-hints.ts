/** pi's startup header above the transcript: where this is, and the keys bound now. */
import type { HeaderData, HeaderHint } from "../../../ui/header.ts";

/** The header's hints, by the id whose keys they name; `literal` hints name what is typed, not a key. */
type Hint = { id?: string | readonly string[]; literal?: string; description: string; suffix?: string };

const HINTS: readonly Hint[] = [
	{ id: "app.interrupt", description: "interrupt" },
	{ id: ["app.clear", "app.exit"], description: "clear/exit" },
	{ literal: "/", description: "commands" },
	{ literal: "!", description: "bash" },
	{ id: "app.tools.expand", description: "more" },
];
const EXPANDED_HINTS: readonly Hint[] = [
	{ id: "app.interrupt", description: "to interrupt" },
	{ id: "app.clear", description: "to clear" },
	{ id: "app.clear", suffix: " twice", description: "to exit" },
	{ id: "app.exit", description: "to exit (empty)" },
	{ id: "app.suspend", description: "to suspend" },
	{ id: "tui.editor.deleteToLineEnd", description: "to delete to end" },
	{ id: "app.thinking.cycle", description: "to cycle thinking level" },
	{ id: ["app.model.cycleForward", "app.model.cycleBackward"], description: "to cycle models" },
	{ id: "app.model.select", description: "to select model" },
	{ id: "app.tools.expand", description: "to expand tools" },
	{ id: "app.thinking.toggle", description: "to expand thinking" },
	{ id: "app.editor.external", description: "for external editor" },
	{ literal: "/", description: "for commands" },
	{ literal: "!", description: "to run bash" },
	{ literal: "!!", description: "to run bash (no context)" },
	{ id: "app.message.followUp", description: "to queue follow-up" },
	{ id: "app.message.dequeue", description: "to edit all queued messages" },
	{ id: "app.clipboard.pasteImage", description: "to paste files, images, or text" },
];

export interface HeaderState {
	readonly place: string;
	/** Ctrl+O: every hint, one per line. */
	readonly expanded: boolean;
	/** pi's quietStartup setting, and `--verbose`, which shows the header anyway. */
	readonly quietStartup: boolean | "header";
	readonly verbose: boolean;
}

/** The header for the keys bound now: an id that is not bound has no hint. */
export function headerData(state: HeaderState, keyText: (id: string) => string): HeaderData {
	const keys = (id: string | readonly string[]) => (typeof id === "string" ? [id] : id).map((i) => keyText(i));
	const hints: HeaderHint[] = [];
	for (const hint of state.expanded ? EXPANDED_HINTS : HINTS) {
		if (hint.literal) {
			hints.push({ key: hint.literal, description: hint.description });
			continue;
		}
		const bound = keys(hint.id ?? []);
		if (!bound.length || bound.some((k) => !k)) continue;
		hints.push({ key: bound.join("/") + (hint.suffix ?? ""), description: hint.description });
	}
	const more = keyText("app.tools.expand");
	const details = state.quietStartup === false || state.verbose;
	return {
		place: state.place,
		hints,
		// pi names the loaded resources too when its startup details show (not with quietStartup, but --verbose).
		help: more ? `Press ${more} to show full startup help${details ? " and loaded resources" : ""}.` : "",
		// pi: quietStartup true hides the startup header (logo, version, hints); --verbose shows it anyway.
		hidden: state.quietStartup === true && !state.verbose,
		expanded: state.expanded,
	};
}

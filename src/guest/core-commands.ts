import type { CommandRegistry } from "./commands.ts";

/** What the core commands do, given by the runtime that owns the screen and the launcher channel. */
export interface CoreActions {
	exit(): void;
	/** Empties the editor. */
	clearEditor(): void;
	/** Asks the launcher for a fresh worker on the server's current bundle. */
	reload(): void;
	hotkeys(): void;
	palette(): void;
	settings(): void;
	keybindings(): void;
	/** pi's double Escape on an empty editor: the session tree, a fork, or nothing (`doubleEscapeAction`). */
	doubleEscape(): void;
}

/** pi's rule: the first Ctrl+C clears the editor, a second within this time quits. */
const DOUBLE_PRESS_MS = 500;

/**
 * The commands every p2 has, whatever its plugins: quitting, the palette, help, preferences, reload. pi's ids
 * keep pi's keys (so a pi `keybindings.json` remaps them); p2's own are `p2.*`. Categories group /hotkeys and
 * the palette.
 */
export function registerCoreCommands(commands: CommandRegistry, actions: CoreActions): void {
	let lastClear = 0;
	const add = (command: Parameters<CommandRegistry["register"]>[0]) => commands.register(command);
	add({
		id: "app.clear",
		title: "Clear editor (first) / exit (second)",
		category: "Other",
		when: "chat",
		run: () => {
			const now = Date.now();
			if (now - lastClear < DOUBLE_PRESS_MS) return actions.exit();
			lastClear = now;
			actions.clearEditor();
		},
	});
	add({
		id: "app.exit",
		title: "Exit (when editor is empty)",
		category: "Other",
		when: "chat && (!editorFocused || editorEmpty)",
		slash: { name: "quit" },
		run: () => actions.exit(),
	});
	add({
		id: "p2.palette",
		title: "Show all commands",
		category: "p2",
		keys: ["f1"],
		when: "chat",
		palette: false,
		run: () => actions.palette(),
	});
	add({
		id: "p2.hotkeys",
		title: "Show all keyboard shortcuts",
		category: "p2",
		slash: { name: "hotkeys" },
		run: () => actions.hotkeys(),
	});
	add({
		id: "p2.settings",
		title: "Open settings menu",
		category: "p2",
		slash: { name: "settings" },
		run: () => actions.settings(),
	});
	add({
		id: "p2.keybindings",
		title: "Change keyboard shortcuts",
		category: "p2",
		slash: { name: "keybindings" },
		run: () => actions.keybindings(),
	});
	add({
		id: "p2.tui.reload",
		title: "Reload the UI from the server's current bundle (the draft and reading position stay)",
		category: "p2",
		slash: { name: "reload" },
		run: () => actions.reload(),
	});
	let lastEscape = 0;
	add({
		id: "p2.chat.doubleEscape",
		title: "Escape twice on an empty editor: the session tree or a fork (doubleEscapeAction)",
		category: "Other",
		keys: ["escape"],
		when: "chat && editorFocused && editorEmpty && !busy && !autocomplete",
		palette: false,
		run: () => {
			const now = Date.now();
			if (now - lastEscape <= DOUBLE_PRESS_MS) {
				lastEscape = 0;
				actions.doubleEscape();
			} else lastEscape = now;
		},
	});
}

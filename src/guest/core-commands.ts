import type { CommandRegistry } from "./commands.ts";

/** What the core commands do, given by the runtime that owns the session, the screen and the launcher channel. */
export interface CoreActions {
	exit(): void;
	/** The editor's text, and clearing it. */
	clearEditor(): void;
	/** Asks the launcher for a fresh worker on the server's current bundle. */
	reload(): void;
	rename(title: string): Promise<void>;
	newSession(path: string): Promise<void>;
	/** pi's /compact: resolves when the summary is written (or the compaction was cancelled). */
	compact(instructions: string): Promise<void>;
	newContext(handoff: string): Promise<void>;
	stop(): void;
	followUp(): void;
	dequeue(): void;
	toggleTools(): void;
	toggleThinking(): void;
	hotkeys(): void;
	palette(): void;
	settings(): void;
	keybindings(): void;
	notice(text: string): void;
	/** pi's double Escape on an empty editor: the session tree, a fork, or nothing (`doubleEscapeAction`). */
	doubleEscape(): void;
}

/** pi's rule: the first Ctrl+C clears the editor, a second within this time quits. */
const DOUBLE_PRESS_MS = 500;

/**
 * The commands every p2 has. pi's ids keep pi's keys (so a pi `keybindings.json` remaps them); p2's own are
 * `p2.*`. Categories group /hotkeys and the palette.
 */
export function registerCoreCommands(commands: CommandRegistry, actions: CoreActions): void {
	let lastClear = 0;
	const add = (command: Parameters<CommandRegistry["register"]>[0]) => commands.register(command);
	add({
		id: "app.interrupt",
		title: "Cancel autocomplete / abort streaming",
		category: "Other",
		when: "chat && busy && !autocomplete",
		run: () => actions.stop(),
	});
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
		id: "app.tools.expand",
		title: "Toggle tool output expansion",
		category: "Other",
		when: "chat",
		run: () => actions.toggleTools(),
	});
	add({
		id: "app.thinking.toggle",
		title: "Toggle thinking block visibility",
		category: "Other",
		when: "chat",
		run: () => actions.toggleThinking(),
	});
	add({
		id: "app.message.followUp",
		title: "Queue follow-up message",
		category: "Other",
		when: "chat && editorFocused",
		run: () => actions.followUp(),
	});
	add({
		id: "app.message.dequeue",
		title: "Restore queued messages",
		category: "Other",
		when: "chat",
		run: () => actions.dequeue(),
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
	add({
		id: "app.session.new",
		title: "Start a new session (here, or in the path on the server)",
		category: "Sessions",
		when: "chat && owner",
		slash: { name: "new", argumentHint: "[path]" },
		run: (path) => actions.newSession(path),
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
	add({
		id: "p2.chat.leaveBashMode",
		title: "Leave bash mode (clears a `!` command not yet run)",
		category: "Other",
		keys: ["escape"],
		// pi: Esc in bash mode clears the editor; while something runs, Esc stops it instead.
		when: "chat && editorFocused && bashMode && !busy && !autocomplete",
		palette: false,
		run: () => actions.clearEditor(),
	});
	add({
		id: "p2.chat.compact",
		title: "Manually compact the session context",
		category: "Sessions",
		when: "chat && participant",
		slash: { name: "compact", argumentHint: "[instructions]" },
		run: (instructions) => actions.compact(instructions),
	});
	add({
		id: "p2.chat.newContext",
		title: "Start a fresh context for the model here (the transcript stays), with an optional handoff note",
		category: "Sessions",
		when: "chat && owner",
		slash: { name: "new-context", argumentHint: "[handoff]" },
		run: (handoff) => actions.newContext(handoff),
	});
	add({
		id: "p2.sessions.rename",
		title: "Set the session's name",
		category: "Sessions",
		slash: { name: "name", argumentHint: "<title>" },
		run: async (title) => {
			if (!title) throw new Error("Usage: /name <title>");
			await actions.rename(title);
			actions.notice(`Session name set: ${title}`);
		},
	});
}

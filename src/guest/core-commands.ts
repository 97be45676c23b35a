import type { CommandRegistry } from "./commands.ts";

/** What the core commands do, given by the runtime that owns the session and the launcher channel. */
export interface CoreActions {
	exit(): void;
	/** Asks the launcher for a fresh worker on the server's current bundle. */
	reload(): void;
	rename(title: string): Promise<void>;
	newSession(path: string): Promise<void>;
	notice(text: string): void;
}

/** The commands every p2 has: pi's `/quit`, `/reload`, `/name` and `/new`. */
export function registerCoreCommands(commands: CommandRegistry, actions: CoreActions): void {
	commands.register({ id: "app.quit", name: "quit", description: "Quit p2", run: () => actions.exit() });
	commands.register({
		id: "app.reload",
		name: "reload",
		description: "Reload the UI from the server's current bundle (the draft and reading position stay)",
		run: () => actions.reload(),
	});
	commands.register({
		id: "app.session.new",
		name: "new",
		argumentHint: "[path]",
		description: "Start a new session (here, or in the path on the server)",
		run: (path) => actions.newSession(path),
	});
	commands.register({
		id: "sessions.rename",
		name: "name",
		argumentHint: "<title>",
		description: "Set the session's name",
		run: async (title) => {
			if (!title) throw new Error("Usage: /name <title>");
			await actions.rename(title);
			actions.notice(`Session name set: ${title}`);
		},
	});
}

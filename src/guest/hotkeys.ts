/**
 * /hotkeys, generated: pi's Navigation and Editing tables from the keymap, then every command by category,
 * the launcher's keys, and what does not work and why (conflicts, dropped defaults, preference problems).
 */
import { isLauncherKeyAction, isPrivilegedId } from "../protocol/keybindings.ts";
import type { CommandRegistry, RegisteredCommand } from "./commands.ts";
import { type Keymap, keyText } from "./keymap.ts";
import type { When } from "./when.ts";

const NAVIGATION: readonly (readonly [readonly string[], string])[] = [
	[
		["tui.editor.cursorUp", "tui.editor.cursorDown", "tui.editor.cursorLeft", "tui.editor.cursorRight"],
		"Move cursor / browse history",
	],
	[["tui.editor.cursorWordLeft", "tui.editor.cursorWordRight"], "Move by word"],
	[["tui.editor.cursorLineStart"], "Start of line"],
	[["tui.editor.cursorLineEnd"], "End of line"],
	[["tui.editor.jumpForward"], "Jump forward to character"],
	[["tui.editor.jumpBackward"], "Jump backward to character"],
	[["tui.editor.pageUp", "tui.editor.pageDown"], "Scroll by page"],
];
const EDITING: readonly (readonly [readonly string[], string])[] = [
	[["tui.input.submit"], "Send message"],
	[["tui.input.newLine"], "New line"],
	[["tui.editor.deleteWordBackward"], "Delete word backwards"],
	[["tui.editor.deleteWordForward"], "Delete word forwards"],
	[["tui.editor.deleteToLineStart"], "Delete to start of line"],
	[["tui.editor.deleteToLineEnd"], "Delete to end of line"],
	[["tui.editor.yank"], "Paste the most-recently-deleted text"],
	[["tui.editor.yankPop"], "Cycle through the deleted text after pasting"],
	[["tui.editor.undo"], "Undo"],
];
/** pi's "Other" table, in its order. */
const PI_OTHER = [
	"app.interrupt",
	"app.clear",
	"app.exit",
	"app.suspend",
	"app.thinking.cycle",
	"app.model.cycleForward",
	"app.model.select",
	"app.tools.expand",
	"app.thinking.toggle",
	"app.editor.external",
	"app.message.copy",
	"app.message.followUp",
	"app.message.dequeue",
	"app.clipboard.pasteImage",
	"p2.attach",
];
/** pi's ids the launcher runs; it takes their keys before the UI sees them. */
const LAUNCHER_TITLES: Readonly<Record<string, string>> = {
	"app.suspend": "Suspend to background",
	"app.editor.external": "Edit message in external editor",
	"app.message.copy": "Copy selection or last assistant message",
	"app.clipboard.pasteImage": "Paste files on macOS, images, or text from clipboard",
	"p2.attach": "Attach a file from this computer (the launcher's picker)",
};

/** Where a command's keys apply, in words, for the contexts a person can tell apart. */
const CONTEXT_WORDS: Readonly<Record<string, string>> = {
	busy: "while the agent works",
	owner: "owners only",
	guest: "guests only",
	participant: "when you can send",
	searching: "while searching",
	compacting: "while compacting",
	sessions: "in the sessions list",
};

function where(when: When): string {
	const words = [...when.required].map((name) =>
		name.startsWith("overlay:") ? `in ${name.slice("overlay:".length)}` : CONTEXT_WORDS[name],
	);
	const said = words.filter(Boolean);
	return said.length ? ` (${said.join(", ")})` : "";
}

export function hotkeysMarkdown(keymap: Keymap, commands: CommandRegistry): string {
	const mac = keymap.platform.platform === "darwin";
	const shown = (ids: readonly string[]) =>
		ids
			.map((id) => keyText(keymap.keys(id), { capitalize: true, mac }))
			.filter(Boolean)
			.map((k) => `\`${k}\``)
			.join(" / ");
	const table = (rows: readonly (readonly [string, string])[]) =>
		["| Key | Action |", "|-----|--------|", ...rows.map(([k, a]) => `| ${k || "(unbound)"} | ${a} |`)].join("\n");
	const sections: string[] = [];
	sections.push(`**Navigation**\n${table(NAVIGATION.map(([ids, action]) => [shown(ids), action]))}`);
	sections.push(`**Editing**\n${table(EDITING.map(([ids, action]) => [shown(ids), action]))}`);
	const byCategory = new Map<string, [string, string][]>([["Other", []]]);
	const row = (category: string, keys: string, action: string) => {
		const rows = byCategory.get(category) ?? [];
		rows.push([keys, action]);
		byCategory.set(category, rows);
	};
	const slashes = commands.slashIndex().byName;
	const listed = new Set<string>();
	const commandRow = (entry: RegisteredCommand) => {
		const { command } = entry;
		listed.add(command.id);
		const keys = shown([command.id]);
		const slash = command.slash && slashes.get(command.slash.name) === command ? `\`/${command.slash.name}\`` : "";
		if (!keys && !slash) return;
		row(command.category ?? "Other", [keys, slash].filter(Boolean).join(" · "), command.title + where(entry.when));
	};
	// pi's "Other" table in pi's order; the launcher's keys where pi lists them, said to be the launcher's.
	const byId = new Map(commands.all().map((entry) => [entry.command.id, entry]));
	row("Other", shown(["tui.input.tab"]), "Path completion / accept autocomplete");
	for (const id of PI_OTHER) {
		const entry = byId.get(id);
		if (entry) commandRow(entry);
		else if (isPrivilegedId(id)) {
			const ready = isLauncherKeyAction(id);
			row("Other", shown([id]), `${LAUNCHER_TITLES[id]} (the launcher's key${ready ? "" : "; not available yet"})`);
		}
	}
	for (const entry of commands.listed()) if (!listed.has(entry.command.id)) commandRow(entry);
	row("Other", "`/`", "Slash commands");
	for (const [category, rows] of byCategory) sections.push(`**${category}**\n${table(rows)}`);
	const problems = [...commands.problems().map((p) => p.text), ...keymap.problems];
	if (problems.length) {
		sections.push(`**Problems**\n${problems.map((p) => `- ${p.replace(/[|`*_[\]]/g, (c) => `\\${c}`)}`).join("\n")}`);
	}
	return sections.join("\n\n");
}

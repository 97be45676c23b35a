/**
 * /hotkeys, generated: pi's Navigation and Editing tables from the keymap, then every command by category,
 * the launcher's keys, and what does not work and why (conflicts, dropped defaults, preference problems).
 */
import { isPrivilegedId, piKeybindings } from "../protocol/keybindings.ts";
import type { CommandRegistry } from "./commands.ts";
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
/** pi's ids the launcher will run (seed 3.1); until it does, their keys do nothing. */
const LAUNCHER_TITLES: Readonly<Record<string, string>> = {
	"app.suspend": "Suspend to background",
	"app.editor.external": "Edit message in external editor",
	"app.message.copy": "Copy selection or last assistant message",
	"app.clipboard.pasteImage": "Paste files on macOS, images, or text from clipboard",
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
	const byCategory = new Map<string, [string, string][]>();
	const row = (category: string, keys: string, action: string) => {
		const rows = byCategory.get(category) ?? [];
		rows.push([keys, action]);
		byCategory.set(category, rows);
	};
	row("Other", shown(["tui.input.tab"]), "Path completion / accept autocomplete");
	const slashes = commands.slashIndex().byName;
	for (const entry of commands.all()) {
		const { command } = entry;
		const keys = shown([command.id]);
		const slash = command.slash && slashes.get(command.slash.name) === command ? `\`/${command.slash.name}\`` : "";
		if (!keys && !slash) continue;
		row(command.category ?? "Other", [keys, slash].filter(Boolean).join(" · "), command.title + where(entry.when));
	}
	row("Other", "`/`", "Slash commands");
	for (const [category, rows] of byCategory) sections.push(`**${category}**\n${table(rows)}`);
	const pi = piKeybindings(keymap.platform);
	const launcher = Object.keys(pi)
		.filter(isPrivilegedId)
		.map((id): [string, string] => [
			shown([id]),
			`${LAUNCHER_TITLES[id] ?? id} — the launcher's key; not available yet`,
		]);
	sections.push(`**Launcher**\n${table(launcher)}`);
	const problems = [...commands.problems().map((p) => p.text), ...keymap.problems];
	if (problems.length) {
		sections.push(`**Problems**\n${problems.map((p) => `- ${p.replace(/[|`*_[\]]/g, (c) => `\\${c}`)}`).join("\n")}`);
	}
	return sections.join("\n\n");
}

/**
 * pi's key table, as the launcher and the guest both need it: the launcher validates the person's
 * `keybindings.json` and decides which keys it keeps for itself; the guest builds pi-tui's keymap from it.
 * The modules named here are pi-tui's key parser and table alone (the launcher already loads them).
 */

import { FORBIDDEN_KEYS, isRecord, own } from "./own-keys.ts";
import { Key, TUI_KEYBINDINGS } from "./pi-tui-parts.ts";

export interface KeyDefinition {
	readonly defaultKeys: string | readonly string[];
	readonly description: string;
}
export type KeyDefinitions = Readonly<Record<string, KeyDefinition>>;
/** A person's bindings: an id's keys (an empty list unbinds it). */
export type KeyBindings = Readonly<Record<string, readonly string[]>>;

/** The guest platform decides pi's defaults: Windows (and WSL, as pi treats it) moves a few keys. */
export interface KeyPlatform {
	readonly platform: "linux" | "darwin" | "win32" | "other";
	readonly windowsKeys: boolean;
}

/** The actions only the launcher runs: their keys are matched on raw input and never reach the worker. */
export const PRIVILEGED_IDS: readonly string[] = [
	"app.clipboard.pasteImage",
	"app.editor.external",
	"app.suspend",
	"app.message.copy",
	"p2.attach",
];

/** The launcher ids this launcher runs today (the others are listed as the launcher's, not yet available). */
export const LAUNCHER_KEY_ACTIONS = [
	"app.message.copy",
	"app.editor.external",
	"app.suspend",
	"app.clipboard.pasteImage",
	"p2.attach",
] as const;
export type LauncherKeyAction = (typeof LAUNCHER_KEY_ACTIONS)[number];

export function isLauncherKeyAction(id: string): id is LauncherKeyAction {
	return (LAUNCHER_KEY_ACTIONS as readonly string[]).includes(id);
}

export function isPrivilegedId(id: string): boolean {
	return PRIVILEGED_IDS.includes(id);
}

/** pi's `app.*` ids with its defaults and descriptions for the platform (pi's coding agent, 1.6.0). */
export function appKeybindings({ platform, windowsKeys }: KeyPlatform): KeyDefinitions {
	const mac = platform === "darwin";
	return {
		"app.interrupt": { defaultKeys: "escape", description: "Cancel or abort" },
		"app.clear": { defaultKeys: "ctrl+c", description: "Clear editor" },
		"app.exit": { defaultKeys: "ctrl+d", description: "Exit when editor is empty" },
		"app.suspend": { defaultKeys: platform === "win32" ? [] : "ctrl+z", description: "Suspend to background" },
		"app.thinking.cycle": { defaultKeys: "shift+tab", description: "Cycle thinking level" },
		"app.thinking.save": { defaultKeys: "ctrl+s", description: "Save thinking level" },
		"app.model.cycleForward": { defaultKeys: "ctrl+p", description: "Cycle to next model" },
		"app.model.cycleBackward": {
			defaultKeys: windowsKeys ? "alt+p" : "shift+ctrl+p",
			description: "Cycle to previous model",
		},
		"app.model.select": { defaultKeys: "ctrl+l", description: "Open model selector" },
		"app.tools.expand": { defaultKeys: "ctrl+o", description: "Toggle tool output" },
		"app.thinking.toggle": { defaultKeys: "ctrl+t", description: "Toggle thinking blocks" },
		"app.session.toggleNamedFilter": { defaultKeys: "ctrl+n", description: "Toggle named session filter" },
		"app.editor.external": { defaultKeys: "ctrl+g", description: "Open external editor" },
		"app.message.copy": { defaultKeys: "ctrl+x", description: "Copy selection or last assistant message" },
		"app.message.followUp": {
			defaultKeys: windowsKeys ? "ctrl+q" : "alt+enter",
			description: "Queue follow-up message",
		},
		"app.message.dequeue": { defaultKeys: windowsKeys ? "alt+q" : "alt+up", description: "Restore queued messages" },
		"app.clipboard.pasteImage": {
			defaultKeys: windowsKeys ? ["alt+v", "ctrl+v"] : "ctrl+v",
			description: "Paste files on macOS, images, or text from clipboard",
		},
		"app.session.new": { defaultKeys: [], description: "Start a new session" },
		"app.session.tree": { defaultKeys: [], description: "Open session tree" },
		"app.session.fork": { defaultKeys: [], description: "Fork current session" },
		"app.session.resume": { defaultKeys: [], description: "Resume a session" },
		"app.tree.foldOrUp": {
			defaultKeys: mac ? ["alt+left", "ctrl+left"] : ["ctrl+left", "alt+left"],
			description: "Fold tree branch or move up",
		},
		"app.tree.unfoldOrDown": {
			defaultKeys: mac ? ["alt+right", "ctrl+right"] : ["ctrl+right", "alt+right"],
			description: "Unfold tree branch or move down",
		},
		"app.tree.editLabel": { defaultKeys: "shift+l", description: "Edit tree label" },
		"app.tree.toggleLabelTimestamp": { defaultKeys: "shift+t", description: "Toggle tree label timestamps" },
		"app.session.togglePath": { defaultKeys: "ctrl+p", description: "Toggle session path display" },
		"app.session.toggleSort": { defaultKeys: "ctrl+s", description: "Toggle session sort mode" },
		"app.session.rename": { defaultKeys: "ctrl+r", description: "Rename session" },
		"app.session.delete": { defaultKeys: "ctrl+d", description: "Delete session" },
		"app.session.deleteNoninvasive": {
			defaultKeys: "ctrl+backspace",
			description: "Delete session when query is empty",
		},
		"app.models.save": { defaultKeys: "ctrl+s", description: "Save model selection" },
		"app.models.enableAll": { defaultKeys: "ctrl+a", description: "Enable all models" },
		"app.models.clearAll": { defaultKeys: "ctrl+x", description: "Clear all models" },
		"app.models.toggleProvider": { defaultKeys: "ctrl+p", description: "Toggle all models for provider" },
		"app.models.reorderUp": { defaultKeys: "alt+up", description: "Move model up in order" },
		"app.models.reorderDown": { defaultKeys: "alt+down", description: "Move model down in order" },
		"app.tree.filter.default": { defaultKeys: "ctrl+d", description: "Tree filter: default view" },
		"app.tree.filter.noTools": { defaultKeys: "ctrl+t", description: "Tree filter: hide tool results" },
		"app.tree.filter.userOnly": { defaultKeys: "ctrl+u", description: "Tree filter: user messages only" },
		"app.tree.filter.labeledOnly": { defaultKeys: "ctrl+l", description: "Tree filter: labeled entries only" },
		"app.tree.filter.all": { defaultKeys: "ctrl+a", description: "Tree filter: show all entries" },
		"app.tree.filter.cycleForward": { defaultKeys: "ctrl+o", description: "Tree filter: cycle forward" },
		"app.tree.filter.cycleBackward": { defaultKeys: "shift+ctrl+o", description: "Tree filter: cycle backward" },
	};
}

/** pi-tui's `tui.*` ids with the platform defaults pi's coding agent sets over them. */
export function tuiKeybindings({ platform, windowsKeys }: KeyPlatform): KeyDefinitions {
	const base = TUI_KEYBINDINGS as unknown as KeyDefinitions;
	return {
		...base,
		"tui.editor.undo": {
			...base["tui.editor.undo"]!,
			defaultKeys: platform === "win32" ? "ctrl+z" : windowsKeys ? "alt+z" : "ctrl+-",
		},
		"tui.altScreen.previousPrompt": {
			...base["tui.altScreen.previousPrompt"]!,
			defaultKeys: windowsKeys ? "ctrl+up" : ["ctrl+shift+up", "ctrl+up"],
		},
		"tui.altScreen.nextPrompt": {
			...base["tui.altScreen.nextPrompt"]!,
			defaultKeys: windowsKeys ? "ctrl+down" : ["ctrl+shift+down", "ctrl+down"],
		},
		"tui.altScreen.search": {
			...base["tui.altScreen.search"]!,
			defaultKeys: windowsKeys ? "ctrl+f" : "ctrl+shift+f",
		},
	};
}

/** Every id pi knows, for the platform: pi-tui's and the coding agent's. */
export function piKeybindings(platform: KeyPlatform): KeyDefinitions {
	return { ...tuiKeybindings(platform), ...appKeybindings(platform) };
}

export function defaultKeys(definition: KeyDefinition | undefined): string[] {
	if (!definition) return [];
	return typeof definition.defaultKeys === "string" ? [definition.defaultKeys] : [...definition.defaultKeys];
}

/**
 * The keys the launcher keeps for its own actions (design: launcher actions): each id's keys from the person's own
 * files, else pi's default; minus any key the person gave to another action that pi does not give it by
 * default (then that action has it). A key pi itself shares by default stays the launcher's, and pi's mode rule
 * applies: the UI suspends interception while its own text input needs the key.
 */
export function launcherKeys(
	platform: KeyPlatform,
	user: KeyBindings,
	ids: readonly string[],
): { kept: { id: string; keys: string[] }[]; lost: { key: string; id: string; to: string }[] } {
	const pi = piKeybindings(platform);
	const userKeys = (id: string) => (Object.hasOwn(user, id) ? user[id] : undefined);
	const piDefault = (id: string) => defaultKeys(Object.hasOwn(pi, id) ? pi[id] : undefined);
	const others = [...new Set([...Object.keys(pi), ...Object.keys(user)])].filter((id) => !isPrivilegedId(id));
	const kept: { id: string; keys: string[] }[] = [];
	const lost: { key: string; id: string; to: string }[] = [];
	for (const id of ids) {
		if (!isPrivilegedId(id)) continue;
		const keys = [...(userKeys(id) ?? piDefault(id))].filter((key) => {
			const to = others.find((other) => userKeys(other)?.includes(key) && !piDefault(other).includes(key));
			if (to) lost.push({ key, id, to });
			return !to;
		});
		kept.push({ id, keys });
	}
	return { kept, lost };
}

/** pi's names from before the `tui.*`/`app.*` ids; pi still reads them (the new id wins when both are set). */
export const LEGACY_KEYBINDING_NAMES: Readonly<Record<string, string>> = {
	cursorUp: "tui.editor.cursorUp",
	cursorDown: "tui.editor.cursorDown",
	cursorLeft: "tui.editor.cursorLeft",
	cursorRight: "tui.editor.cursorRight",
	cursorWordLeft: "tui.editor.cursorWordLeft",
	cursorWordRight: "tui.editor.cursorWordRight",
	cursorLineStart: "tui.editor.cursorLineStart",
	cursorLineEnd: "tui.editor.cursorLineEnd",
	jumpForward: "tui.editor.jumpForward",
	jumpBackward: "tui.editor.jumpBackward",
	pageUp: "tui.editor.pageUp",
	pageDown: "tui.editor.pageDown",
	deleteCharBackward: "tui.editor.deleteCharBackward",
	deleteCharForward: "tui.editor.deleteCharForward",
	deleteWordBackward: "tui.editor.deleteWordBackward",
	deleteWordForward: "tui.editor.deleteWordForward",
	deleteToLineStart: "tui.editor.deleteToLineStart",
	deleteToLineEnd: "tui.editor.deleteToLineEnd",
	yank: "tui.editor.yank",
	yankPop: "tui.editor.yankPop",
	undo: "tui.editor.undo",
	newLine: "tui.input.newLine",
	submit: "tui.input.submit",
	tab: "tui.input.tab",
	copy: "tui.input.copy",
	selectUp: "tui.select.up",
	selectDown: "tui.select.down",
	selectPageUp: "tui.select.pageUp",
	selectPageDown: "tui.select.pageDown",
	selectConfirm: "tui.select.confirm",
	selectCancel: "tui.select.cancel",
	interrupt: "app.interrupt",
	clear: "app.clear",
	exit: "app.exit",
	suspend: "app.suspend",
	cycleThinkingLevel: "app.thinking.cycle",
	cycleModelForward: "app.model.cycleForward",
	cycleModelBackward: "app.model.cycleBackward",
	selectModel: "app.model.select",
	expandTools: "app.tools.expand",
	toggleThinking: "app.thinking.toggle",
	toggleSessionNamedFilter: "app.session.toggleNamedFilter",
	externalEditor: "app.editor.external",
	followUp: "app.message.followUp",
	dequeue: "app.message.dequeue",
	pasteImage: "app.clipboard.pasteImage",
	newSession: "app.session.new",
	tree: "app.session.tree",
	fork: "app.session.fork",
	resume: "app.session.resume",
	treeFoldOrUp: "app.tree.foldOrUp",
	treeUnfoldOrDown: "app.tree.unfoldOrDown",
	treeEditLabel: "app.tree.editLabel",
	treeToggleLabelTimestamp: "app.tree.toggleLabelTimestamp",
	toggleSessionPath: "app.session.togglePath",
	toggleSessionSort: "app.session.toggleSort",
	renameSession: "app.session.rename",
	deleteSession: "app.session.delete",
	deleteSessionNoninvasive: "app.session.deleteNoninvasive",
};

const MODIFIERS = ["ctrl", "shift", "alt", "super"];
const BASE_KEYS = new Set<string>(
	Object.values(Key as Record<string, unknown>).filter((v) => typeof v === "string") as string[],
);

/** pi's key id: up to four distinct modifiers, then a letter, a digit or one of pi-tui's named keys. */
export function isKeyId(text: string): boolean {
	if (text.length > 64) return false;
	const parts = text.split("+");
	// `ctrl++` names the plus key.
	if (text.endsWith("++")) parts.splice(parts.length - 2, 2, "+");
	const base = parts.pop()!;
	if (parts.length > 4 || new Set(parts).size !== parts.length) return false;
	if (!parts.every((m) => MODIFIERS.includes(m))) return false;
	return /^[a-z0-9]$/.test(base) || BASE_KEYS.has(base);
}

/** Identifier-like ids: pi's, p2's `<plugin>.<verb>`, and the legacy names. */
const ID_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/;
export const MAX_KEYBINDINGS = 512;

/**
 * A `keybindings.json` as pi reads it: legacy names migrated (a new id set beside its old name wins), `$schema`
 * skipped, a value that is not a key id or a list of them dropped. What is dropped is reported by id, never
 * with the file's contents.
 */
export function readKeybindings(
	raw: unknown,
	label: string,
): { bindings: Record<string, string[]>; problems: string[] } {
	const problems: string[] = [];
	const bindings: Record<string, string[]> = {};
	if (!isRecord(raw)) return { bindings, problems: [`${label}: not an object of key bindings`] };
	const names = Object.keys(raw);
	for (const name of names.slice(0, MAX_KEYBINDINGS)) {
		const value = raw[name];
		if (name === "$schema") continue;
		if (FORBIDDEN_KEYS.has(name)) {
			problems.push(`${label}: the key ${name} is not allowed`);
			continue;
		}
		if (!ID_PATTERN.test(name)) {
			problems.push(`${label}: ignored an entry whose name is not a keybinding id`);
			continue;
		}
		const legacy = own(LEGACY_KEYBINDING_NAMES, name);
		const id = typeof legacy === "string" ? legacy : name;
		if (id !== name && Object.hasOwn(raw, id)) continue;
		const keys = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
		if (!keys || keys.length > 16 || !keys.every((k) => typeof k === "string" && isKeyId(k))) {
			problems.push(`${label}: invalid keys for ${id}`);
			continue;
		}
		bindings[id] = [...new Set(keys as string[])];
	}
	if (names.length > MAX_KEYBINDINGS) problems.push(`${label}: only the first ${MAX_KEYBINDINGS} entries are read`);
	return { bindings, problems };
}

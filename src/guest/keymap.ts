/**
 * The keymap: pi-tui's `tui.*` ids, pi's `app.*` table for the guest's platform, the commands' own defaults
 * and the person's bindings, built into one pi-tui KeybindingsManager and installed for every component. The
 * build also says what will not work and why, for /hotkeys.
 */
import {
	getKeybindings,
	isKittyProtocolActive,
	type Keybinding,
	type KeybindingDefinitions,
	type KeybindingsConfig,
	KeybindingsManager,
} from "@earendil-works/pi-tui";
import {
	isPrivilegedId,
	type KeyBindings,
	type KeyDefinition,
	type KeyPlatform,
	launcherKeys,
	PRIVILEGED_IDS,
	piKeybindings,
} from "../protocol/keybindings.ts";
import type { RegisteredCommand } from "./commands.ts";
import { canOverlap, parseWhen, type When } from "./when.ts";

/** The screens, and owner/guest, exclude each other: two commands on one key in different ones never meet. */
export const EXCLUSIVE_CONTEXTS: readonly (readonly string[])[] = [
	["chat", "sessions", "models"],
	["owner", "guest"],
	// Bash mode is a `!` in the editor: never an empty one.
	["editorEmpty", "bashMode"],
];

/** pi-tui's transcript keys that it handles before any command sees them (the search ones only in search). */
const TRANSCRIPT_FIRST = [
	"tui.altScreen.pageUp",
	"tui.altScreen.pageDown",
	"tui.altScreen.halfPageUp",
	"tui.altScreen.halfPageDown",
	"tui.altScreen.lineUp",
	"tui.altScreen.lineDown",
	"tui.altScreen.previousPrompt",
	"tui.altScreen.nextPrompt",
	"tui.altScreen.search",
	"tui.altScreen.top",
	"tui.altScreen.bottom",
];

export interface Keymap {
	readonly manager: KeybindingsManager;
	/** Commands in dispatch order: more specific first, then bound by the person, then registration order. */
	readonly ordered: readonly RegisteredCommand[];
	/** Lines for /hotkeys: keys that do not do what their binding says, and why. */
	readonly problems: readonly string[];
	readonly platform: KeyPlatform;
	keys(id: string): string[];
}

export function buildKeymap(
	platform: KeyPlatform,
	commands: readonly RegisteredCommand[],
	user: KeyBindings,
	preferenceProblems: readonly string[] = [],
): Keymap {
	const pi = piKeybindings(platform);
	const problems: string[] = [];
	const launcher = launcherKeys(platform, user, PRIVILEGED_IDS);
	const privilegedKeys = new Set(launcher.kept.flatMap((k) => k.keys));
	const definitions: Record<string, KeyDefinition> = {
		...pi,
		// p2's own launcher action: unbound by default, bindable in the person's own files.
		"p2.attach": { defaultKeys: [], description: "Attach a file from this computer (the launcher's picker)" },
	};
	for (const { command } of commands) {
		if (pi[command.id]) continue;
		const keys = (command.keys ?? []).filter((key) => {
			if (!privilegedKeys.has(key)) return true;
			problems.push(`${command.id}: its default ${key} is the launcher's; the key is not bound`);
			return false;
		});
		definitions[command.id] = { defaultKeys: keys, description: command.title };
	}
	const bindings: Record<string, string[]> = {};
	for (const [id, keys] of Object.entries(user)) bindings[id] = [...keys];
	const manager = new RememberingKeybindings(
		definitions as unknown as KeybindingDefinitions,
		bindings as KeybindingsConfig,
	);
	for (const id of Object.keys(user)) {
		if (!definitions[id]) problems.push(`keybindings: unknown id ${id} (kept, as pi does)`);
	}
	for (const conflict of manager.getConflicts()) {
		problems.push(`keybindings: ${conflict.key} is bound to ${conflict.keybindings.join(" and ")}`);
	}
	for (const { key, to } of launcher.lost)
		problems.push(`${key}: the launcher's action and ${to} share it; the launcher's loses`);
	const ordered = [...commands].sort(
		(a, b) =>
			b.when.specificity - a.when.specificity ||
			Number(b.command.id in user) - Number(a.command.id in user) ||
			a.order - b.order,
	);
	const transcriptKeys = new Map<string, string>();
	for (const id of TRANSCRIPT_FIRST) for (const key of manager.getKeys(id as never)) transcriptKeys.set(key, id);
	const seen: { entry: RegisteredCommand; key: string }[] = [];
	for (const entry of ordered) {
		for (const key of manager.getKeys(entry.command.id as never)) {
			const transcript = transcriptKeys.get(key);
			if (transcript && canOverlap(entry.when, chatScreen(), EXCLUSIVE_CONTEXTS)) {
				problems.push(`${entry.command.id}: ${key} scrolls or searches the transcript first (${transcript})`);
			}
			if (isPrivilegedId(entry.command.id)) continue;
			for (const other of seen) {
				if (other.key !== key || other.entry.when.specificity !== entry.when.specificity) continue;
				if (!canOverlap(other.entry.when, entry.when, EXCLUSIVE_CONTEXTS)) continue;
				problems.push(
					`${key}: ${other.entry.command.id} and ${entry.command.id} overlap; ${other.entry.command.id} wins`,
				);
			}
			seen.push({ entry, key });
		}
	}
	problems.push(...preferenceProblems);
	return { manager, ordered, problems, platform, keys: (id) => manager.getKeys(id as never) };
}

let chat: When | undefined;
/** The chat screen without an overlay: where pi-tui's transcript keys act. */
function chatScreen(): When {
	chat ??= parseWhen("chat && !overlay");
	return chat;
}

/** Whether the input is one of an id's keys in the installed keymap: any id, pi's or a plugin's (one cast, here). */
export function matchesId(data: string, id: string): boolean {
	return getKeybindings().matches(data, id as Keybinding);
}

/** Whether the input is one of the id's keys. */
export function keyMatches(keymap: Keymap, data: string, id: string): boolean {
	return keymap.manager.matches(data, id as Keybinding);
}

/** How many inputs' answers are kept; a longer input (a paste) is not kept at all. */
const KEPT_INPUTS = 256;
const KEPT_INPUT_CHARS = 32;

/**
 * pi-tui's keybindings, keeping each input's answers until the keys change. A keystroke is matched against
 * most bindings (every command's, then the focused component's own), each a parse of the input per key;
 * matching depends only on the input, the keys and whether the Kitty protocol is on, so a key pressed again
 * is answered from what was kept.
 */
class RememberingKeybindings extends KeybindingsManager {
	/** Input (with the Kitty protocol's state) → binding → whether it matches. */
	readonly #kept = new Map<string, Map<string, boolean>>();

	override setUserBindings(userBindings: KeybindingsConfig): void {
		this.#kept.clear();
		super.setUserBindings(userBindings);
	}

	override matches(data: string, keybinding: Keybinding): boolean {
		if (data.length > KEPT_INPUT_CHARS) return super.matches(data, keybinding);
		const kept = this.#kept;
		const input = `${isKittyProtocolActive() ? "k" : "-"}${data}`;
		let byId = kept.get(input);
		if (!byId) {
			if (kept.size >= KEPT_INPUTS) kept.clear();
			byId = new Map();
			kept.set(input, byId);
		}
		let answer = byId.get(keybinding);
		if (answer === undefined) {
			answer = super.matches(data, keybinding);
			byId.set(keybinding, answer);
		}
		return answer;
	}
}

/** pi's key text: `ctrl+c/ctrl+d`, or capitalized for help (`Ctrl+C`); Alt is Option on a Mac. */
export function keyText(keys: readonly string[], options: { capitalize?: boolean; mac?: boolean } = {}): string {
	return keys
		.map((key) =>
			key
				.split("+")
				.map((part) => {
					const shown = options.mac && part === "alt" ? "option" : part;
					return options.capitalize ? shown.charAt(0).toUpperCase() + shown.slice(1) : shown;
				})
				.join("+"),
		)
		.join("/");
}

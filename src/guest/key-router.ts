/**
 * Which command a key runs: the keymap built from the commands and the person's bindings, and the contexts
 * their `when` expressions test, the core's own and those plugins add.
 */
import { isKeyRelease, setKeybindings, type TUI } from "@earendil-works/pi-tui";
import type { Capabilities } from "../protocol/channel.ts";
import { isPrivilegedId } from "../protocol/keybindings.ts";
import { isOwnerRole, isParticipantRole, type Role } from "../protocol/roles.ts";
import type { CommandRegistry } from "./commands.ts";
import { buildKeymap, type Keymap, keyMatches } from "./keymap.ts";
import type { ContextProvider } from "./plugin.ts";
import type { EffectivePreferences } from "./preferences.ts";

export interface KeyRouterOptions {
	readonly tui: TUI;
	readonly commands: CommandRegistry;
	readonly capabilities: Capabilities;
	/** The person's bindings, and problems with their files to report in /hotkeys. */
	preferences(): { readonly effective: EffectivePreferences; readonly problems: readonly string[] };
	/** The open selector's id, if one is open. */
	selector(): string | undefined;
	role(): Role | undefined;
	connected(): boolean;
	onError(error: unknown): void;
}

export class KeyRouter {
	readonly #options: KeyRouterOptions;
	readonly #providers = new Set<ContextProvider>();
	/** Each command's latest run by key: a key pressed again waits for it (see `onKey`). */
	readonly #runs = new Map<string, Promise<void>>();
	#keymap: Keymap;

	constructor(options: KeyRouterOptions) {
		this.#options = options;
		this.#keymap = this.#build();
	}

	get keymap(): Keymap {
		return this.#keymap;
	}

	/** Commands or the person's bindings changed: a new keymap for every component (pi-tui reads it per key). */
	rebuild(): void {
		this.#keymap = this.#build();
		setKeybindings(this.#keymap.manager);
	}

	addContexts(provider: ContextProvider): () => void {
		this.#providers.add(provider);
		return () => this.#providers.delete(provider);
	}

	/**
	 * Keys reach the commands after pi-tui's transcript keys, and before the focused component: the most
	 * specific command whose context holds and whose keys match runs. While a selector or pi-tui's search
	 * has focus, only commands that name the overlay are eligible; everything else goes to it.
	 */
	onKey(data: string): { consume: boolean } | undefined {
		if (isKeyRelease(data)) return undefined;
		const contexts = this.contexts();
		const inOverlay = contexts.has("overlay");
		for (const entry of this.#keymap.ordered) {
			const id = entry.command.id;
			// The launcher's actions are never the worker's to run.
			if (isPrivilegedId(id)) continue;
			if (inOverlay && ![...entry.when.required].some((n) => n === "overlay" || n.startsWith("overlay:"))) continue;
			if (!entry.when.test(contexts) || !keyMatches(this.#keymap, data, id)) continue;
			// Every press counts: a command's runs follow one another, so three Shift+Tab in one burst move the
			// level three times (each run sees what the one before it did), not three times from the same level.
			const run = (this.#runs.get(id) ?? Promise.resolve())
				.then(() => this.#options.commands.invoke(entry.command))
				.then(
					() => {},
					(error: unknown) => this.#options.onError(error),
				);
			this.#runs.set(id, run);
			void run.then(() => {
				if (this.#runs.get(id) === run) this.#runs.delete(id);
			});
			return { consume: true };
		}
		return undefined;
	}

	/** The context names commands' `when` expressions test. */
	contexts(): Set<string> {
		const options = this.#options;
		const contexts = new Set<string>(["chat"]);
		const selector = options.selector();
		if (selector) contexts.add("overlay").add(`overlay:${selector}`);
		else if (options.tui.hasOverlay()) contexts.add("overlay").add("searching");
		else contexts.add("editorFocused");
		const role = options.role();
		if (isOwnerRole(role)) contexts.add("owner");
		else if (role) contexts.add("guest");
		if (isParticipantRole(role)) contexts.add("participant");
		if (options.connected()) contexts.add("connected");
		for (const provider of this.#providers) provider(contexts);
		return contexts;
	}

	#build(): Keymap {
		const { capabilities, commands } = this.#options;
		const { effective, problems } = this.#options.preferences();
		return buildKeymap(
			{ platform: capabilities.platform, windowsKeys: capabilities.windowsKeys },
			commands.all(),
			effective.keybindings,
			[...effective.problems, ...problems],
		);
	}
}

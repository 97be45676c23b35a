/**
 * The screens that change how p2 looks and which keys do what: /settings, /keybindings and the F1 palette.
 * Each change is proposed to the launcher, which shows it and writes `prefs.json`; the file's watcher then
 * brings the new preferences back to every part of the UI.
 */

import { isPrivilegedId, piKeybindings } from "../protocol/keybindings.ts";
import type { DisplaySettings, PrefsPatch, TuiMode } from "../protocol/preferences.ts";
import { FilterSelector } from "../ui/selector.ts";
import { appearanceOf, type TerminalFacts } from "../ui/theme/builtin.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import type { CommandRegistry } from "./commands.ts";
import { type KeybindingRow, KeybindingsSelector } from "./keybindings-selector.ts";
import { type Keymap, keyText } from "./keymap.ts";
import type { GuestUi } from "./layout.ts";
import type { EffectivePreferences } from "./preferences.ts";
import { SettingsSelector } from "./settings-selector.ts";
import { type CustomThemes, themeFor, themeNames } from "./theme-setting.ts";

export interface PreferenceScreensContext {
	readonly ui: GuestUi;
	readonly theme: ThemeRef;
	readonly commands: CommandRegistry;
	/** `--theme` for this run, if given. */
	readonly themeArg: string | undefined;
	effective(): EffectivePreferences;
	/** The renderer on now: /settings shows it as the TUI mode, whatever the flag or the setting said (pi). */
	tuiMode(): TuiMode;
	facts(): TerminalFacts;
	/** The launcher draws images in this terminal. */
	images(): boolean;
	custom(): CustomThemes;
	keymap(): Keymap;
	savePrefs(patch: PrefsPatch): Promise<{ ok: boolean; error?: string }>;
	/** Saved settings take over from what a key changed in this run (see `Appearance.setForRun`). */
	saved(settings: DisplaySettings): void;
}

export class PreferenceScreens {
	readonly #ctx: PreferenceScreensContext;

	constructor(ctx: PreferenceScreensContext) {
		this.#ctx = ctx;
	}

	/** /settings: pi's list; what changed is proposed to the launcher as one patch when it closes. */
	openSettings(): void {
		const { ui: screen, theme } = this.#ctx;
		const prefs = this.#ctx.effective();
		const facts = this.#ctx.facts();
		const custom = this.#ctx.custom();
		const background = facts.colors?.background;
		const selector = new SettingsSelector({
			theme,
			settings: { ...prefs.settings, tuiMode: this.#ctx.tuiMode() },
			themeSetting: this.#ctx.themeArg ?? prefs.theme ?? "system",
			images: this.#ctx.images(),
			themeNames: themeNames(custom),
			light: background ? appearanceOf(background) === "light" : false,
			previewTheme: (value) => themeFor(value, facts, custom).theme,
			onClose: (patch) => {
				screen.closeSelector();
				if (patch) void this.#save(patch);
			},
		});
		screen.showSelector("settings", selector);
	}

	/** /keybindings: each change is saved on its own; the list comes back with the new keys. */
	openKeybindings(selected?: string): void {
		const { ui: screen, theme, commands } = this.#ctx;
		const keymap = this.#ctx.keymap();
		const pi = piKeybindings(keymap.platform);
		const rows: KeybindingRow[] = [];
		const add = (id: string, title: string) =>
			rows.push({ id, title, keys: keyText(keymap.keys(id), { capitalize: true }) });
		for (const { command } of commands.listed()) add(command.id, command.title);
		for (const id of Object.keys(pi)) {
			if (id.startsWith("tui.editor.") || id.startsWith("tui.input.") || id.startsWith("tui.altScreen.")) {
				add(id, pi[id]!.description);
			}
		}
		for (const id of Object.keys(pi).filter(isPrivilegedId)) add(id, pi[id]!.description);
		const selector = new KeybindingsSelector({
			theme,
			rows,
			close: () => screen.closeSelector(),
			save: (patch) => {
				screen.closeSelector();
				void this.#save(patch).then(() => this.openKeybindings(Object.keys(patch.keybindings ?? {})[0]));
			},
		});
		if (selected) selector.select(selected);
		screen.showSelector("keybindings", selector);
	}

	/** F1: every command with a palette entry; Enter runs it (a slash form that needs an argument goes to the editor). */
	openPalette(): void {
		const { ui: screen, theme, commands } = this.#ctx;
		const keymap = this.#ctx.keymap();
		const items = commands
			.listed()
			.filter(({ command }) => command.palette !== false && !isPrivilegedId(command.id) && commands.allows(command))
			.map(({ command }) => {
				const keys = keyText(keymap.keys(command.id));
				const slash = command.slash ? `/${command.slash.name}` : "";
				return { value: command.id, label: command.title, description: [slash, keys].filter(Boolean).join("  ") };
			});
		// Titles get the room the screen has beside the longest slash form and keys (pi-tui's default is 30 columns).
		const described = Math.max(0, ...items.map((item) => item.description.length));
		const selector = new FilterSelector(theme, {
			title: "Commands",
			items,
			layout: {
				minPrimaryColumnWidth: 30,
				maxPrimaryColumnWidth: Math.max(30, screen.tui.terminal.columns - described - 4),
			},
			hint: "↑↓ navigate  enter run  escape cancel",
			filterText: (item) => `${item.label} ${item.description ?? ""}`,
			onCancel: () => screen.closeSelector(),
			onSelect: (item) => {
				screen.closeSelector();
				const command = commands.get(item.value);
				if (!command) return;
				if (command.slash?.argumentHint?.startsWith("<")) {
					screen.setEditorText(`/${command.slash.name} `);
					return;
				}
				commands.invoke(command).catch((error: unknown) => screen.fail(error));
			},
		});
		screen.showSelector("palette", selector);
	}

	/** Asks the launcher to write `prefs.json`; it shows the change on its own screen first. */
	async #save(patch: PrefsPatch): Promise<void> {
		const answer = await this.#ctx.savePrefs(patch);
		const screen = this.#ctx.ui;
		if (answer.ok && patch.settings) this.#ctx.saved(patch.settings);
		if (answer.ok) screen.notice("Preferences saved", "success");
		else if (answer.error === "declined") screen.notice("Preferences not saved");
		else screen.notice(`Preferences not saved: ${answer.error ?? "refused"}`, "warning");
	}
}

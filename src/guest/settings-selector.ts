/**
 * /settings: pi's settings list with the display settings p2 applies, and the theme. Changes are collected
 * while it is open and proposed as one `prefs.json` patch when it closes (the launcher asks before writing).
 */
import {
	type Component,
	Container,
	type SelectItem,
	SelectList,
	type SettingItem,
	SettingsList,
	Spacer,
	Text,
} from "@earendil-works/pi-tui";
import { DISPLAY_DEFAULTS, type DisplaySettings, type PrefsPatch, settingAt } from "../protocol/preferences.ts";
import type { Theme } from "../ui/theme/theme.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import { ThemePreview } from "../ui/theme-preview.ts";
import { parsePair } from "./theme-setting.ts";

type Leaf = string | number | boolean;

interface Row {
	readonly id: string;
	/** The dotted setting it changes. */
	readonly path: string;
	readonly label: string;
	readonly description: string;
	readonly values: readonly string[];
	parse(value: string): Leaf;
}

const bool = (value: string) => value === "true";
const int = (value: string) => Number.parseInt(value, 10);

/** pi's labels, descriptions, choices and defaults (settings selector, 1.6.0), for what p2 applies. */
const ROWS: readonly Row[] = [
	{
		id: "skill-commands",
		path: "enableSkillCommands",
		label: "Skill commands",
		description: "Register skills as /skill:name commands",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "show-hardware-cursor",
		path: "showHardwareCursor",
		label: "Show hardware cursor",
		description: "Use the terminal cursor instead of Pi's drawn cursor",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "editor-padding",
		path: "editorPaddingX",
		label: "Editor padding",
		description: "Horizontal padding for input editor (0-3)",
		values: ["0", "1", "2", "3"],
		parse: int,
	},
	{
		id: "autocomplete-max-visible",
		path: "autocompleteMaxVisible",
		label: "Autocomplete max items",
		description: "Max visible items in autocomplete dropdown (3-20)",
		values: ["3", "5", "7", "10", "15", "20"],
		parse: int,
	},
	{
		id: "clear-on-shrink",
		path: "terminal.clearOnShrink",
		label: "Clear on shrink",
		description: "Clear empty rows when content shrinks (may cause flicker)",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "terminal-progress",
		path: "terminal.showTerminalProgress",
		label: "Terminal progress",
		description: "Show OSC 9;4 progress indicators in the terminal tab bar",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "hide-thinking",
		path: "hideThinkingBlock",
		label: "Hide thinking",
		description: "Hide thinking blocks in assistant responses",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "mermaid-rendering",
		path: "markdown.mermaid",
		label: "Mermaid diagrams",
		description: "Render Mermaid code blocks as Unicode diagrams",
		values: ["off", "final", "streaming"],
		parse: (v) => v,
	},
	{
		id: "double-escape-action",
		path: "doubleEscapeAction",
		label: "Double-escape action",
		description: "Action when pressing Escape twice with empty editor",
		values: ["tree", "fork", "none"],
		parse: (v) => v,
	},
	{
		id: "quiet-startup",
		path: "quietStartup",
		label: "Quiet startup",
		description: "Disable verbose printing at startup (header: keep only the startup header)",
		values: ["true", "header", "false"],
		parse: (v) => (v === "header" ? "header" : v === "true"),
	},
	{
		id: "tui-mode",
		path: "tuiMode",
		label: "TUI mode",
		description: "Interface layout; regular mode uses the terminal's normal scrollback",
		values: ["regular", "fullscreen"],
		parse: (v) => v,
	},
	{
		id: "fullscreen-exit-output",
		path: "fullscreenExitOutput",
		label: "Fullscreen exit output",
		description: "Print the transcript or only a session resume hint when exiting fullscreen mode",
		values: ["transcript", "resume-hint"],
		parse: (v) => v,
	},
	{
		id: "fullscreen-scrollbar",
		path: "fullscreenScrollbar",
		label: "Fullscreen scrollbar",
		description: "Scrollbar behavior in fullscreen mode; has no effect in regular mode",
		values: ["auto", "always", "hidden"],
		parse: (v) => v,
	},
	{
		id: "fullscreen-copy-on-select",
		path: "fullscreenCopyOnSelect",
		label: "Fullscreen copy on select",
		description: "Automatically copy selected text in fullscreen mode; disable to copy selections with Ctrl+X",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "fullscreen-wheel-scroll-lines",
		path: "fullscreenWheelScrollLines",
		label: "Fullscreen wheel scrolling",
		description:
			"Lines per mouse-wheel event in fullscreen mode; 'auto' speeds up fast wheel spins where the terminal does not",
		values: ["auto", "1", "2", "3", "5", "10"],
		parse: (v) => (v === "auto" ? "auto" : int(v)),
	},
];

/** pi lists these only where the terminal shows images (here: where the launcher draws them). */
const IMAGE_ROWS: readonly Row[] = [
	{
		id: "show-images",
		path: "terminal.showImages",
		label: "Show images",
		description: "Render images inline in terminal",
		values: ["true", "false"],
		parse: bool,
	},
	{
		id: "image-width-cells",
		path: "terminal.imageWidthCells",
		label: "Image width",
		description: "Preferred inline image width in terminal cells",
		values: ["60", "80", "120"],
		parse: int,
	},
];

export interface SettingsSelectorOptions {
	readonly theme: ThemeRef;
	/** The launcher draws images in this terminal: pi's image rows are listed. */
	readonly images?: boolean;
	/** The effective display settings and theme setting. */
	readonly settings: DisplaySettings;
	readonly themeSetting: string;
	readonly themeNames: readonly string[];
	/** Is the terminal light (for an automatic pair's preview)? */
	readonly light: boolean;
	previewTheme(setting: string): Theme;
	/** Closed: the patch of what changed, or undefined when nothing did. */
	onClose(patch: PrefsPatch | undefined): void;
}

/** pi's default for a row's setting. */
const fallback = (path: string) => (DISPLAY_DEFAULTS as Record<string, Leaf>)[path];

export class SettingsSelector extends Container {
	readonly capturesViewportInput = true;
	readonly #list: SettingsList;
	readonly #changes = new Map<string, Leaf>();
	#theme: string | undefined;

	constructor(options: SettingsSelectorOptions) {
		super();
		const t = () => options.theme.current;
		const rows = options.images ? [...IMAGE_ROWS, ...ROWS] : ROWS;
		const items: SettingItem[] = rows.map((row) => ({
			id: row.id,
			label: row.label,
			description: row.description,
			currentValue: String(settingAt(options.settings, row.path) ?? fallback(row.path)),
			values: [...row.values],
		}));
		let themeSetting = options.themeSetting;
		items.push({
			id: "theme",
			label: "Theme",
			description: "Color theme for the interface",
			currentValue: themeSetting,
			submenu: (current, done) =>
				new ThemeSubmenu({
					theme: options.theme,
					current,
					names: options.themeNames,
					light: options.light,
					previewTheme: options.previewTheme,
					done: (value) => {
						if (value !== undefined && value !== themeSetting) {
							themeSetting = value;
							this.#theme = value;
						}
						done(value);
					},
				}),
		});
		this.#list = new SettingsList(
			items,
			10,
			options.theme.settingsListTheme(),
			(id, value) => {
				const row = rows.find((r) => r.id === id);
				if (row) this.#changes.set(row.path, row.parse(value));
			},
			() => options.onClose(this.#patch(options.settings)),
			{ enableSearch: true },
		);
		const border = { render: (w: number) => [t().rule(w)], invalidate() {} };
		this.addChild(border);
		this.addChild(this.#list);
		this.addChild(border);
	}

	handleInput(data: string): void {
		this.#list.handleInput(data);
	}

	/** Only what differs from what is in effect; nested settings as pi nests them. */
	#patch(effective: DisplaySettings): PrefsPatch | undefined {
		const settings: Record<string, unknown> = {};
		for (const [path, value] of this.#changes) {
			if ((settingAt(effective, path) ?? fallback(path)) === value) continue;
			const [head, leaf] = path.split(".") as [string, string | undefined];
			if (!leaf) settings[head] = value;
			else settings[head] = { ...(settings[head] as object | undefined), [leaf]: value };
		}
		const patch: PrefsPatch = {
			...(Object.keys(settings).length ? { settings } : {}),
			...(this.#theme !== undefined ? { theme: this.#theme } : {}),
		};
		return Object.keys(patch).length ? patch : undefined;
	}
}

const AUTOMATIC = "/";

interface ThemeSubmenuOptions {
	readonly theme: ThemeRef;
	readonly current: string;
	readonly names: readonly string[];
	readonly light: boolean;
	previewTheme(setting: string): Theme;
	done(value?: string): void;
}

/**
 * pi's theme submenu: system, automatic, then the themes by name, with `✓` on the current one. p2 shows the
 * highlighted theme in a preview pane below instead of repainting the whole screen.
 */
class ThemeSubmenu extends Container {
	readonly #options: ThemeSubmenuOptions;
	readonly #preview: ThemePreview;
	#input: Component | undefined;
	#pair: { light: string; dark: string };

	constructor(options: ThemeSubmenuOptions) {
		super();
		this.#options = options;
		const pair = parsePair(options.current);
		const single = pair ? undefined : options.current;
		this.#pair = pair ?? { light: single ?? "system", dark: single ?? "system" };
		this.#preview = new ThemePreview(options.previewTheme(options.current));
		if (pair) this.#showAutomatic();
		else this.#showSingle(single ?? "system");
	}

	handleInput(data: string): void {
		(this.#input as { handleInput?(d: string): void } | undefined)?.handleInput?.(data);
	}

	#frame(title: string, lines: string[], body: Component, hint: string): void {
		const t = this.#options.theme.current;
		this.clear();
		this.addChild(new Text(t.bold(t.fg("accent", title)), 0, 0));
		this.addChild(new Spacer(1));
		for (const line of lines) this.addChild(new Text(t.fg("muted", line), 0, 0));
		this.addChild(new Spacer(1));
		this.addChild(body);
		this.addChild(new Spacer(1));
		this.addChild(new Text(t.fg("dim", `  ${hint}`), 0, 0));
		this.addChild(new Spacer(1));
		this.addChild(new Text(t.fg("dim", "  Preview"), 0, 0));
		this.addChild(this.#preview);
		this.#input = body;
	}

	#showSingle(current: string): void {
		const names = this.#options.names;
		const mark = (name: string) => `${name === current ? "✓ " : "  "}${name}`;
		const items: SelectItem[] = [
			{ value: "system", label: mark("system"), description: "Theme created from your terminal's colors" },
			{
				value: AUTOMATIC,
				label: "  automatic",
				description: "Use separate themes for light and dark terminal appearance",
			},
			...names.filter((n) => n !== "system").map((name) => ({ value: name, label: mark(name) })),
		];
		const list = new SelectList(items, 10, this.#options.theme.selectListTheme(), {
			minPrimaryColumnWidth: 12,
			maxPrimaryColumnWidth: 32,
		});
		const at = items.findIndex((i) => i.value === current);
		if (at >= 0) list.setSelectedIndex(at);
		list.onSelectionChange = (item) =>
			this.#preview.show(
				this.#options.previewTheme(item.value === AUTOMATIC ? `${this.#pair.light}/${this.#pair.dark}` : item.value),
			);
		list.onSelect = (item) => {
			if (item.value === AUTOMATIC) return this.#showAutomatic();
			this.#options.done(item.value);
		};
		list.onCancel = () => this.#options.done();
		this.#frame(
			"Theme",
			["Select a theme, or choose automatic to follow terminal appearance."],
			list,
			"Enter to select · Esc to go back",
		);
	}

	#showAutomatic(): void {
		const names = this.#options.names.filter((n) => !n.includes("/"));
		const setting = () => `${this.#pair.light}/${this.#pair.dark}`;
		const list = new SettingsList(
			[
				{ id: "light-theme", label: "Light theme", currentValue: this.#pair.light, values: [...names] },
				{ id: "dark-theme", label: "Dark theme", currentValue: this.#pair.dark, values: [...names] },
				{ id: "apply", label: "Apply", currentValue: "save and go back", values: ["save and go back"] },
				{
					id: "single-mode",
					label: "Change mode",
					currentValue: "switch to single theme",
					values: ["switch to single theme"],
				},
			],
			6,
			this.#options.theme.settingsListTheme(),
			(id, value) => {
				if (id === "light-theme") this.#pair = { ...this.#pair, light: value };
				else if (id === "dark-theme") this.#pair = { ...this.#pair, dark: value };
				else if (id === "apply") return this.#options.done(setting());
				else if (id === "single-mode")
					return this.#showSingle(this.#options.light ? this.#pair.light : this.#pair.dark);
				this.#preview.show(this.#options.previewTheme(setting()));
			},
			() => this.#options.done(),
		);
		this.#preview.show(this.#options.previewTheme(setting()));
		this.#frame(
			"Automatic Theme",
			["Choose themes for terminal light and dark appearance.", "Light/dark detection requires terminal support."],
			list,
			"Enter to change · Esc to go back",
		);
	}
}

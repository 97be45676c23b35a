import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isPrivilegedId, readKeybindings } from "../../protocol/keybindings.ts";
import { readDisplaySettings } from "../../protocol/preferences.ts";
import { LiveState } from "../../server/objects/live-state.ts";
import type { ServerPlugin } from "../../server/plugin.ts";
import { type TuiDefaultsState, tuiDefaultsContract } from "./contract.ts";

export const TUI_DEFAULTS_FILE = "tui.json";
const MAX_BYTES = 256 * 1024;

/** `<data>/tui.json`: `{"keybindings": {...}, "theme": "...", "settings": {...}}`, the shapes of pi's files. */
export function readTuiDefaults(dataDir: string): TuiDefaultsState {
	const path = join(dataDir, TUI_DEFAULTS_FILE);
	const problems: string[] = [];
	const empty = { keybindings: {}, settings: {}, problems };
	let raw: unknown;
	try {
		if (statSync(path).size > MAX_BYTES) return { ...empty, problems: [`${TUI_DEFAULTS_FILE} is too large`] };
		raw = JSON.parse(readFileSync(path, "utf8"));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return empty;
		return { ...empty, problems: [`${TUI_DEFAULTS_FILE} is not valid JSON`] };
	}
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
		return { ...empty, problems: [`${TUI_DEFAULTS_FILE}: not an object`] };
	}
	const doc = raw as Record<string, unknown>;
	const keys =
		doc.keybindings === undefined
			? { bindings: {}, problems: [] }
			: readKeybindings(doc.keybindings, TUI_DEFAULTS_FILE);
	const settings =
		doc.settings === undefined ? { settings: {}, problems: [] } : readDisplaySettings(doc.settings, TUI_DEFAULTS_FILE);
	problems.push(...keys.problems, ...settings.problems);
	const keybindings: Record<string, string[]> = {};
	for (const [id, bound] of Object.entries(keys.bindings)) {
		if (isPrivilegedId(id)) problems.push(`${TUI_DEFAULTS_FILE}: ${id} is the launcher's; ignored`);
		else keybindings[id] = bound;
	}
	const theme = typeof doc.theme === "string" && doc.theme.length <= 130 ? doc.theme : undefined;
	if (doc.theme !== undefined && !theme) problems.push(`${TUI_DEFAULTS_FILE}: invalid theme`);
	return { keybindings, ...(theme ? { theme } : {}), settings: settings.settings, problems: problems.slice(0, 50) };
}

export const tuiDefaultsPlugin: ServerPlugin = {
	name: "tui-defaults",
	register({ host, dataDir }) {
		host.serve(tuiDefaultsContract, {
			open() {
				return { state: new LiveState(readTuiDefaults(dataDir)), call: () => undefined };
			},
		});
	},
};

import { join } from "node:path";
import { isPrivilegedId, readKeybindings } from "../../protocol/keybindings.ts";
import { readDisplaySettings } from "../../protocol/preferences.ts";
import { fileLabel, isOwner, LiveState, readJsonFile, type ServerPlugin } from "../../server/plugin.ts";
import { type TuiDefaultsState, tuiDefaultsContract } from "./contract.ts";

export const TUI_DEFAULTS_FILE = "tui.json";
const MAX_BYTES = 256 * 1024;

/**
 * `<data>/tui.json`: `{"keybindings": {...}, "theme": "...", "settings": {...}}`, the shapes of pi's files.
 * Problems name the file by `label`: its path for the owners who can fix it, not for guests.
 */
export function readTuiDefaults(dataDir: string, label = TUI_DEFAULTS_FILE): TuiDefaultsState {
	const problems: string[] = [];
	const empty = { keybindings: {}, settings: {}, problems };
	const read = readJsonFile(join(dataDir, TUI_DEFAULTS_FILE), { label, maxBytes: MAX_BYTES });
	if ("missing" in read) return empty;
	if ("problem" in read) return { ...empty, problems: [clip(read.problem)] };
	const raw = read.value;
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
		return { ...empty, problems: [clip(`${label}: the file must be an object`)] };
	}
	const doc = raw as Record<string, unknown>;
	const keys = doc.keybindings === undefined ? { bindings: {}, problems: [] } : readKeybindings(doc.keybindings, label);
	const settings =
		doc.settings === undefined ? { settings: {}, problems: [] } : readDisplaySettings(doc.settings, label);
	problems.push(...keys.problems, ...settings.problems);
	const keybindings: Record<string, string[]> = {};
	for (const [id, bound] of Object.entries(keys.bindings)) {
		if (isPrivilegedId(id)) problems.push(`${label}: ${id} is the launcher's; ignored`);
		else keybindings[id] = bound;
	}
	const theme = typeof doc.theme === "string" && doc.theme.length <= 130 ? doc.theme : undefined;
	if (doc.theme !== undefined && !theme) problems.push(`${label}: invalid theme`);
	return {
		keybindings,
		...(theme ? { theme } : {}),
		settings: settings.settings,
		problems: problems.slice(0, 50).map(clip),
	};
}

/** The contract's bound on one problem: a long path must not make the state invalid. */
function clip(problem: string): string {
	return problem.length <= 300 ? problem : `${problem.slice(0, 299)}…`;
}

export const tuiDefaultsPlugin: ServerPlugin = {
	name: "tui-defaults",
	register({ host, dataDir, log }) {
		const ownerLabel = fileLabel(join(dataDir, TUI_DEFAULTS_FILE));
		// The server's log says it once, at start; each UI that opens the defaults says it to its owner.
		for (const problem of readTuiDefaults(dataDir, ownerLabel).problems) log.warn("server", problem);
		host.serve(tuiDefaultsContract, {
			open(_input, { principal }) {
				const label = isOwner(principal) ? ownerLabel : `the server's ${TUI_DEFAULTS_FILE}`;
				return { state: new LiveState(readTuiDefaults(dataDir, label)), methods: {} };
			},
		});
	},
};

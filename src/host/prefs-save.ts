/**
 * `savePrefs`: the UI proposes a change to `~/.pi/p2-tui/prefs.json`; the launcher refuses what the UI may
 * never change before anything is shown, shows the exact change on its own screen, and writes the file
 * atomically, keeping every key it did not change. pi's own files are never written.
 */
import { join } from "node:path";
import { isKeyId, isPrivilegedId } from "../protocol/keybindings.ts";
import { checkSetting, SETTING_PATHS } from "../protocol/preferences.ts";
import { readBounded } from "./local-preferences.ts";
import { writePrivateJson } from "./private-file.ts";

const TOP_LEVEL = new Set(["keybindings", "theme", "settings"]);
const ID_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/;

type Doc = Record<string, unknown>;

export type SavePlan =
	| { readonly error: string }
	| { readonly path: string; readonly diff: readonly string[]; write(): void };

function isObject(value: unknown): value is Doc {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why a patch is refused, before any screen; undefined when it may be shown. */
export function validatePrefsPatch(patch: unknown): string | undefined {
	if (!isObject(patch)) return "not a change to preferences";
	if (JSON.stringify(patch).length > 64 * 1024) return "the change is too large";
	for (const key of Object.keys(patch)) {
		if (!TOP_LEVEL.has(key)) return `"${key.slice(0, 40)}" cannot be changed from the UI`;
	}
	if (patch.keybindings !== undefined) {
		if (!isObject(patch.keybindings)) return "keybindings must be an object";
		for (const [id, keys] of Object.entries(patch.keybindings)) {
			if (!ID_PATTERN.test(id)) return "a keybinding id is not valid";
			if (isPrivilegedId(id)) return `${id} is the launcher's; its keys are changed only in your own files`;
			if (keys === null) continue;
			if (!Array.isArray(keys) || keys.length > 16 || !keys.every((k) => typeof k === "string" && isKeyId(k))) {
				return `invalid keys for ${id}`;
			}
		}
	}
	if (patch.theme !== undefined && patch.theme !== null) {
		const theme = patch.theme;
		if (typeof theme !== "string" || !theme.trim() || theme.length > 130) return "invalid theme setting";
		const parts = theme.split("/");
		if (parts.length > 2 || parts.some((p) => !p.trim())) return "invalid theme setting";
	}
	if (patch.settings !== undefined) {
		if (!isObject(patch.settings)) return "settings must be an object";
		for (const [key, value] of Object.entries(patch.settings)) {
			if ((key === "terminal" || key === "markdown") && isObject(value)) {
				for (const [leaf, v] of Object.entries(value)) {
					const path = `${key}.${leaf}`;
					if (!(path in SETTING_PATHS)) return `${path.slice(0, 60)} is not a display setting`;
					if (v !== null && !checkSetting(path, v)) return `invalid value for ${path}`;
				}
				continue;
			}
			if (!(key in SETTING_PATHS) || key.includes(".")) return `${key.slice(0, 60)} is not a display setting`;
			if (value !== null && !checkSetting(key, value)) return `invalid value for ${key}`;
		}
	}
	return undefined;
}

/** The document with the patch applied: `null` removes a key; `settings.terminal`/`markdown` merge one level. */
export function applyPrefsPatch(current: Doc, patch: Doc): Doc {
	const next: Doc = structuredClone(current);
	const merge = (target: Doc, changes: Doc, depth: number) => {
		for (const [key, value] of Object.entries(changes)) {
			if (value === null) delete target[key];
			else if (depth > 0 && isObject(value)) {
				const inner = isObject(target[key]) ? (target[key] as Doc) : {};
				merge(inner, value, depth - 1);
				if (Object.keys(inner).length) target[key] = inner;
				else delete target[key];
			} else target[key] = value;
		}
	};
	if (patch.theme !== undefined) merge(next, { theme: patch.theme }, 0);
	for (const key of ["keybindings", "settings"] as const) {
		if (!isObject(patch[key])) continue;
		const inner = isObject(next[key]) ? (next[key] as Doc) : {};
		merge(inner, patch[key] as Doc, key === "settings" ? 1 : 0);
		if (Object.keys(inner).length) next[key] = inner;
		else delete next[key];
	}
	return next;
}

/** Every changed leaf as `- path: old` / `+ path: new`. */
export function prefsDiff(before: Doc, after: Doc): string[] {
	const leaves = (doc: unknown, prefix: string, out: Map<string, string>) => {
		if (isObject(doc) && (prefix === "" || prefix.split(".").length < 3)) {
			for (const [k, v] of Object.entries(doc)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
		} else out.set(prefix, JSON.stringify(doc));
		return out;
	};
	const a = leaves(before, "", new Map());
	const b = leaves(after, "", new Map());
	const lines: string[] = [];
	for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
		if (a.get(path) === b.get(path)) continue;
		if (a.has(path)) lines.push(`- ${path}: ${a.get(path)}`);
		if (b.has(path)) lines.push(`+ ${path}: ${b.get(path)}`);
	}
	return lines;
}

/**
 * The plan for one save: refused (with the reason), or the file's path, the diff to show and the write. The
 * file is read again at planning; a `prefs.json` that is not valid JSON is never overwritten.
 */
export function planPrefsSave(p2Dir: string, patch: unknown): SavePlan {
	const refused = validatePrefsPatch(patch);
	if (refused) return { error: refused };
	const path = join(p2Dir, "prefs.json");
	const read = readBounded(path);
	let current: Doc = {};
	if ("problem" in read) return { error: `prefs.json ${read.problem}` };
	if ("text" in read) {
		try {
			const parsed = JSON.parse(read.text);
			if (!isObject(parsed)) return { error: "prefs.json is not an object; fix it by hand first" };
			current = parsed;
		} catch {
			return { error: "prefs.json is not valid JSON; fix it by hand first" };
		}
	}
	const next = applyPrefsPatch(current, patch as Doc);
	const diff = prefsDiff(current, next);
	if (!diff.length) return { error: "nothing would change" };
	return {
		path,
		diff,
		write: () => writePrivateJson(path, next),
	};
}

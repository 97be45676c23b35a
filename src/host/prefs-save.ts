/**
 * `savePrefs`: the UI proposes a change to `~/.pi/p2-tui/prefs.json`; the launcher refuses what the UI may
 * never change before anything is shown, shows the exact change on its own screen, and writes the file
 * atomically, keeping every key it did not change. pi's own files are never written.
 */
import { join } from "node:path";
import { isKeyId, isPrivilegedId } from "../protocol/keybindings.ts";
import { FORBIDDEN_KEYS, forbiddenKeyIn, hasOwnKey, isRecord, own, type PlainRecord } from "../protocol/own-keys.ts";
import { checkSetting, SETTING_PATHS } from "../protocol/preferences.ts";
import { readBounded } from "./bounded-read.ts";
import { writePrivateJson } from "./private-file.ts";

const TOP_LEVEL = new Set(["keybindings", "theme", "settings"]);
const ID_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/;
/** `settings` groups that hold settings of their own (`terminal.showImages`), merged one level deep. */
const GROUPS = new Set(["terminal", "markdown"]);

type Doc = Record<string, unknown>;

export type SavePlan =
	| { readonly kind: "refused"; readonly error: string }
	| { readonly kind: "ready"; readonly path: string; readonly diff: readonly string[]; write(): void };

const shown = (key: string, max = 60) => JSON.stringify(key.slice(0, max));

/** Why a patch is refused, before any screen; undefined when it may be shown. Every key is an own key. */
export function validatePrefsPatch(patch: unknown): string | undefined {
	if (!isRecord(patch)) return "not a change to preferences";
	const forbidden = forbiddenKeyIn(patch, 4);
	if (forbidden) return `the key ${shown(forbidden)} is not allowed in preferences`;
	if (JSON.stringify(patch).length > 64 * 1024) return "the change is too large";
	for (const key of Object.keys(patch)) {
		if (!TOP_LEVEL.has(key)) return `${shown(key, 40)} cannot be changed from the UI`;
	}
	const keybindings = own(patch, "keybindings");
	if (keybindings !== undefined) {
		if (!isRecord(keybindings)) return "keybindings must be an object";
		for (const id of Object.keys(keybindings)) {
			const keys = keybindings[id];
			if (!ID_PATTERN.test(id)) return "a keybinding id is not valid";
			if (isPrivilegedId(id)) return `${id} is the launcher's; its keys are changed only in your own files`;
			if (keys === null) continue;
			if (!Array.isArray(keys) || keys.length > 16 || !keys.every((k) => typeof k === "string" && isKeyId(k))) {
				return `invalid keys for ${id}`;
			}
		}
	}
	const theme = own(patch, "theme");
	if (theme !== undefined && theme !== null) {
		if (typeof theme !== "string" || !theme.trim() || theme.length > 130) return "invalid theme setting";
		const parts = theme.split("/");
		if (parts.length > 2 || parts.some((p) => !p.trim())) return "invalid theme setting";
	}
	const settings = own(patch, "settings");
	if (settings !== undefined) {
		if (!isRecord(settings)) return "settings must be an object";
		for (const key of Object.keys(settings)) {
			const value = settings[key];
			if (GROUPS.has(key) && isRecord(value)) {
				for (const leaf of Object.keys(value)) {
					const path = `${key}.${leaf}`;
					if (!hasOwnKey(SETTING_PATHS, path)) return `${path.slice(0, 60)} is not a display setting`;
					if (value[leaf] !== null && !checkSetting(path, value[leaf])) return `invalid value for ${path}`;
				}
				continue;
			}
			if (!hasOwnKey(SETTING_PATHS, key) || key.includes(".")) return `${key.slice(0, 60)} is not a display setting`;
			if (value !== null && !checkSetting(key, value)) return `invalid value for ${key}`;
		}
	}
	return undefined;
}

/**
 * The document with the patch applied: `null` removes a key; `settings.terminal`/`markdown` merge one level.
 * Built from own keys into fresh objects, so neither the file nor the patch can reach a prototype.
 */
export function applyPrefsPatch(current: Doc, patch: Doc): Doc {
	const next = copyOwn(current);
	const merge = (target: Doc, changes: Doc, depth: number) => {
		for (const key of Object.keys(changes)) {
			if (FORBIDDEN_KEYS.has(key)) continue;
			const value = changes[key];
			if (value === null) delete target[key];
			else if (depth > 0 && isRecord(value)) {
				const existing = own(target, key);
				const inner = isRecord(existing) ? copyOwn(existing) : {};
				merge(inner, value, depth - 1);
				if (Object.keys(inner).length) target[key] = inner;
				else delete target[key];
			} else target[key] = value;
		}
	};
	const theme = own(patch, "theme");
	if (theme !== undefined) merge(next, { theme }, 0);
	for (const key of ["keybindings", "settings"] as const) {
		const changes = own(patch, key);
		if (!isRecord(changes)) continue;
		const existing = own(next, key);
		const inner = isRecord(existing) ? copyOwn(existing) : {};
		merge(inner, changes, key === "settings" ? 1 : 0);
		if (Object.keys(inner).length) next[key] = inner;
		else delete next[key];
	}
	return next;
}

/** A deep copy of a JSON document through its own keys only (a forbidden key is left out). */
function copyOwn(doc: PlainRecord): Doc {
	const copy = (value: unknown): unknown => {
		if (Array.isArray(value)) return value.map(copy);
		if (!isRecord(value)) return value;
		const out: Doc = {};
		for (const key of Object.keys(value)) if (!FORBIDDEN_KEYS.has(key)) out[key] = copy(value[key]);
		return out;
	};
	return copy(doc) as Doc;
}

/** Every changed leaf as `- path: old` / `+ path: new`. */
export function prefsDiff(before: Doc, after: Doc): string[] {
	const leaves = (doc: unknown, prefix: string, out: Map<string, string>) => {
		if (isRecord(doc) && (prefix === "" || prefix.split(".").length < 3)) {
			for (const k of Object.keys(doc)) leaves(doc[k], prefix ? `${prefix}.${k}` : k, out);
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
	if (refused) return { kind: "refused", error: refused };
	const path = join(p2Dir, "prefs.json");
	const read = readBounded(path);
	let current: Doc = {};
	if (read.kind === "problem") return { kind: "refused", error: `prefs.json ${read.problem}` };
	if (read.kind === "text") {
		try {
			const parsed: unknown = JSON.parse(read.text);
			if (!isRecord(parsed)) return { kind: "refused", error: "prefs.json is not an object; fix it by hand first" };
			current = copyOwn(parsed);
		} catch {
			return { kind: "refused", error: "prefs.json is not valid JSON; fix it by hand first" };
		}
	}
	const next = applyPrefsPatch(current, patch as Doc);
	const diff = prefsDiff(current, next);
	if (!diff.length) return { kind: "refused", error: "nothing would change" };
	return {
		kind: "ready",
		path,
		diff,
		write: () => writePrivateJson(path, next),
	};
}

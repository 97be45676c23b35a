import { isPrivilegedId } from "../protocol/keybindings.ts";
import { type DisplaySettings, mergeSettings, type Preferences } from "../protocol/preferences.ts";

/** The server's defaults for its UI (its tui.json), as a plugin brings them. */
export interface ServerDefaults {
	readonly keybindings: Readonly<Record<string, readonly string[]>>;
	readonly theme?: string;
	readonly settings: DisplaySettings;
	readonly problems: readonly string[];
}

export interface EffectivePreferences {
	readonly keybindings: Readonly<Record<string, readonly string[]>>;
	readonly theme?: string;
	readonly settings: DisplaySettings;
	readonly problems: readonly string[];
}

/**
 * The preferences in effect: the server's defaults, then the person's own (the launcher has already put
 * `prefs.json` over pi's files). The launcher's ids are never taken from the server, whatever it sends.
 */
export function effectivePreferences(
	local: Preferences | undefined,
	server: ServerDefaults | undefined,
): EffectivePreferences {
	const keybindings: Record<string, readonly string[]> = {};
	for (const [id, keys] of Object.entries(server?.keybindings ?? {})) if (!isPrivilegedId(id)) keybindings[id] = keys;
	Object.assign(keybindings, local?.keybindings);
	const theme = local?.theme ?? server?.theme;
	return {
		keybindings,
		...(theme ? { theme } : {}),
		settings: mergeSettings(server?.settings ?? {}, local?.settings ?? {}),
		problems: [...(local?.problems ?? []), ...(server?.problems ?? []).map((p) => `server: ${p}`)],
	};
}

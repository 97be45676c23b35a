/**
 * Which raw keys the launcher takes for itself (seed 3.1, "K"): the launcher's own action ids, with the keys
 * of the person's own files (never the server's or the worker's), for the guest's platform. A key the person
 * gave to another action is that action's; a key pi itself shares by default stays the launcher's, and pi's
 * mode rule applies (the worker suspends interception while its own text input needs the key).
 */
import { type KeyId, matchesKey } from "@earendil-works/pi-tui/dist/keys.js";
import {
	defaultKeys,
	isPrivilegedId,
	type KeyBindings,
	type KeyPlatform,
	piKeybindings,
} from "../protocol/keybindings.ts";

export interface PrivilegedKeys {
	/** The launcher action id the input is a key of, if any. */
	match(data: string): string | undefined;
	/** Keys a launcher action lost to the person's own bindings, for the record. */
	readonly lost: readonly string[];
}

export function privilegedKeys(platform: KeyPlatform, user: KeyBindings, actions: readonly string[]): PrivilegedKeys {
	const pi = piKeybindings(platform);
	const resolved = (id: string) => [...(user[id] ?? defaultKeys(pi[id]))];
	const others = [...new Set([...Object.keys(pi), ...Object.keys(user)])].filter((id) => !isPrivilegedId(id));
	const entries: { id: string; keys: string[] }[] = [];
	const lost: string[] = [];
	for (const id of actions) {
		if (!isPrivilegedId(id)) continue;
		const keys = resolved(id).filter((key) => {
			const takenBy = others.find((other) => user[other]?.includes(key) && !defaultKeys(pi[other]).includes(key));
			if (takenBy) lost.push(`${key}: ${takenBy} (your binding) wins over ${id}`);
			return !takenBy;
		});
		entries.push({ id, keys });
	}
	return {
		lost,
		match: (data) => entries.find((e) => e.keys.some((key) => matchesKey(data, key as KeyId)))?.id,
	};
}

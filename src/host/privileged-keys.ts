/**
 * Which raw keys the launcher takes for itself (design: launcher actions, "K"): the launcher's own action ids, with the keys
 * of the person's own files (never the server's or the worker's), for the guest's platform. A key the person
 * gave to another action is that action's; a key pi itself shares by default stays the launcher's, and pi's
 * mode rule applies (the worker suspends interception while its own text input needs the key).
 */

import { type KeyBindings, type KeyPlatform, launcherKeys } from "../protocol/keybindings.ts";
import { type KeyId, matchesKey } from "../protocol/pi-tui-parts.ts";

export interface PrivilegedKeys<A extends string> {
	/** The launcher action id the input is a key of, if any. */
	match(data: string): A | undefined;
	/** Keys a launcher action lost to the person's own bindings, for the record. */
	readonly lost: readonly string[];
}

export function privilegedKeys<A extends string>(
	platform: KeyPlatform,
	user: KeyBindings,
	actions: readonly A[],
): PrivilegedKeys<A> {
	const { kept, lost } = launcherKeys(platform, user, actions);
	return {
		lost: lost.map((l) => `${l.key}: ${l.to} (your binding) wins over ${l.id}`),
		// launcherKeys keeps only ids it was given.
		match: (data) => kept.find((e) => e.keys.some((key) => matchesKey(data, key as KeyId)))?.id as A | undefined,
	};
}

/**
 * Where each piece of the person's input goes: the terminal's answers to the launcher's own queries, the
 * launcher's screens, the launcher's own keys, or the UI. Three Ctrl+C within a second end p2 wherever the
 * keys were going.
 */
import { isKeyRelease } from "../protocol/pi-tui-parts.ts";
import type { Clock } from "./clock.ts";
import type { KeyAction } from "./launcher-actions.ts";

/** Three Ctrl+C within a second end p2 even when the UI (or a launcher screen) does not answer. */
const EMERGENCY_PRESSES = 3;
const EMERGENCY_WINDOW_MS = 1000;

/** A screen of the launcher's own that takes every key while it is up. */
export interface LauncherScreen {
	readonly active: boolean;
	input(data: string): void;
}

export interface InputRoutes {
	readonly clock: Clock;
	/** An answer to the launcher's own terminal query (colors): taken, never the UI's. */
	takeReply(data: string): boolean;
	/** While the terminal is lent out (the external editor, a suspend), input is not ours. */
	lending(): boolean;
	/** The launcher's screens, in the order they are asked. */
	readonly screens: readonly LauncherScreen[];
	/** Every key that goes on toward the UI (the consent screen's measure of type-ahead, the mouse gesture). */
	observe(data: string): void;
	/** The launcher's own action for this key, unless the UI's text input has asked for every key. */
	privilegedKey(data: string): KeyAction | undefined;
	onKey(action: KeyAction): void;
	forward(data: string): void;
	emergencyExit(): void;
}

export function createInputRouter(routes: InputRoutes): (data: string) => void {
	const ctrlC: number[] = [];
	return (data) => {
		if (routes.takeReply(data)) return;
		if (routes.lending()) return;
		if (data === "\x03") {
			const now = routes.clock.now();
			ctrlC.push(now);
			while (ctrlC.length && now - ctrlC[0]! > EMERGENCY_WINDOW_MS) ctrlC.shift();
			if (ctrlC.length >= EMERGENCY_PRESSES) return routes.emergencyExit();
		}
		const screen = routes.screens.find((s) => s.active);
		if (screen) return screen.input(data);
		routes.observe(data);
		// The launcher's own keys, from the person's own files, never reach the worker (design: launcher actions, "K").
		const action = routes.privilegedKey(data);
		if (action) {
			if (!isKeyRelease(data)) routes.onKey(action);
			return;
		}
		routes.forward(data);
	};
}

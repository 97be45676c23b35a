import { type } from "../../protocol/ark.ts";
import { defineContract } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";
import { DisplaySettings, KeyBindingsRecord } from "../../protocol/preferences-schema.ts";

/**
 * The server's defaults for its terminal UI (`<data>/tui.json`): below the person's own files, above the
 * built-in ones. The launcher's ids are never among them (dropped on the server, and again in the UI).
 */
export const TuiDefaultsState = lazy(() =>
	type({
		keybindings: KeyBindingsRecord,
		"theme?": "string <= 130",
		settings: DisplaySettings,
		problems: type("string <= 300").array().atMostLength(50),
	}),
);
export type TuiDefaultsState = typeof TuiDefaultsState.infer;

const variant = { state: TuiDefaultsState, methods: [] as const };

export const tuiDefaultsContract = defineContract({
	name: "tui-defaults",
	version: 1,
	input: type({}),
	methods: {},
	variants: { deviceOwner: variant, owner: variant, full: variant, view: variant },
});

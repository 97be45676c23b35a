/**
 * Which graphics protocol the person's terminal speaks, by the facts pi reads (its terminal-image detection):
 * the terminal's own variables, pi's `PI_IMAGE_PROTOCOL`, and the person's `terminal.images` setting, which wins.
 * Inside tmux or screen nothing is drawn (they do not pass the sequences on): the UI shows a text placeholder.
 */
import type { ImageProtocol } from "./graphics-sequences.ts";

type Env = Record<string, string | undefined>;
/** pi's `terminal.images`: a protocol, detection, or none. */
export type ImageSetting = "kitty" | "iterm2" | "auto" | false | undefined;

export function imageProtocol(env: Env, setting: ImageSetting): ImageProtocol | undefined {
	if (setting === false) return undefined;
	if (setting === "kitty" || setting === "iterm2") return setting;
	const forced = env.PI_IMAGE_PROTOCOL?.toLowerCase();
	if (forced === "kitty" || forced === "iterm2") return forced;
	if (forced === "none" || forced === "0") return undefined;
	return detected(env);
}

function detected(env: Env): ImageProtocol | undefined {
	const program = env.TERM_PROGRAM?.toLowerCase() ?? "";
	const term = env.TERM?.toLowerCase() ?? "";
	if (env.TMUX || term.startsWith("tmux") || term.startsWith("screen") || env.STY || env.ZELLIJ) return undefined;
	if (program === "herdr" || program === "rex") return "kitty";
	if (program === "orca" && env.ORCA_IMAGE_PROTOCOL === "kitty") return "kitty";
	if (env.KITTY_WINDOW_ID || program === "kitty") return "kitty";
	if (program === "ghostty" || term.includes("ghostty") || env.GHOSTTY_RESOURCES_DIR) return "kitty";
	if (env.WEZTERM_PANE || program === "wezterm") return "kitty";
	if (program === "warpterminal" || env.WARP_SESSION_ID || env.WARP_TERMINAL_SESSION_UUID) return "kitty";
	if (env.ITERM_SESSION_ID || program === "iterm.app") return "iterm2";
	return undefined;
}

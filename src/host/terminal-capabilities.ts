/**
 * What the person's terminal can show, as pi decides it: 24-bit color and OSC 8 hyperlinks by the terminal's
 * name in the environment (pi-tui's rules), then pi's overrides: `PI_TRUE_COLOR` / `PI_HYPERLINKS` (`1`, `0`),
 * and over those the settings `terminal.trueColor` / `terminal.hyperlinks` (`true`, `false`; `"auto"` keeps
 * what was detected). The launcher decides it with the real environment, which the UI never sees.
 */
import { type DisplaySettings, settingAt } from "../protocol/preferences.ts";

type Env = Record<string, string | undefined>;

export interface TerminalAbilities {
	readonly trueColor: boolean;
	readonly hyperlinks: boolean;
}

/** pi-tui's detection by terminal name; under tmux, links only when tmux said it forwards them. */
export function detectAbilities(env: Env, platform: string, tmuxLinks = false): TerminalAbilities {
	const program = env.TERM_PROGRAM?.toLowerCase() ?? "";
	const term = env.TERM?.toLowerCase() ?? "";
	const colorTerm = env.COLORTERM?.toLowerCase() ?? "";
	const hinted = colorTerm === "truecolor" || colorTerm === "24bit" || term.endsWith("-direct");
	if (env.TMUX || term.startsWith("tmux")) return { trueColor: hinted, hyperlinks: tmuxLinks };
	if (term.startsWith("screen")) return { trueColor: hinted, hyperlinks: false };
	if (program === "herdr") return { trueColor: hinted, hyperlinks: true };
	const linking =
		["rex", "orca", "kitty", "ghostty", "wezterm", "warpterminal", "iterm.app", "alacritty", "vscode", "zed"].includes(
			program,
		) ||
		term.includes("ghostty") ||
		term.startsWith("alacritty") ||
		Boolean(
			env.KITTY_WINDOW_ID ||
				env.GHOSTTY_RESOURCES_DIR ||
				env.WEZTERM_PANE ||
				env.WARP_SESSION_ID ||
				env.WARP_TERMINAL_SESSION_UUID ||
				env.ITERM_SESSION_ID ||
				env.WT_SESSION ||
				env.ALACRITTY_WINDOW_ID,
		);
	if (linking) return { trueColor: true, hyperlinks: true };
	if (env.TERMINAL_EMULATOR?.toLowerCase() === "jetbrains-jediterm" || platform === "win32") {
		return { trueColor: true, hyperlinks: false };
	}
	return { trueColor: hinted, hyperlinks: false };
}

/** The detected abilities with pi's environment overrides and the person's settings over them. */
export function terminalAbilities(
	env: Env,
	platform: string,
	settings: DisplaySettings | undefined,
	tmuxLinks = false,
): TerminalAbilities {
	const detected = detectAbilities(env, platform, tmuxLinks);
	const chosen = (setting: string, variable: string | undefined, found: boolean): boolean => {
		const value = settings ? settingAt(settings, setting) : undefined;
		if (value === true || value === false) return value;
		return variable === "1" ? true : variable === "0" ? false : found;
	};
	return {
		trueColor: chosen("terminal.trueColor", env.PI_TRUE_COLOR, detected.trueColor),
		hyperlinks: chosen("terminal.hyperlinks", env.PI_HYPERLINKS, detected.hyperlinks),
	};
}

/** How long tmux may take to say what its client supports. */
const TMUX_ASK_MS = 250;

/**
 * Whether the tmux p2 runs in forwards hyperlinks to the terminal (its client lists `hyperlinks`), as pi-tui
 * asks it. False outside tmux, and when tmux does not answer in time.
 */
export async function tmuxForwardsLinks(env: Env): Promise<boolean> {
	if (!env.TMUX) return false;
	try {
		const tmux = Bun.spawn(["tmux", "display-message", "-p", "#{client_termfeatures}"], {
			stdin: "ignore",
			stdout: "pipe",
			stderr: "ignore",
			timeout: TMUX_ASK_MS,
		});
		const answer = await new Response(tmux.stdout).text();
		if ((await tmux.exited) !== 0) return false;
		return answer
			.split(",")
			.map((feature) => feature.trim())
			.includes("hyperlinks");
	} catch {
		return false;
	}
}

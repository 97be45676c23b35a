/**
 * What the launcher learns about the person's terminal and tells the UI: its capabilities (kitty keyboard,
 * modifyOtherKeys, true color, hyperlinks, the platform's key defaults), its colors and light/dark scheme
 * (asked by the launcher itself, again each time the terminal reports a new scheme; the worker's own queries
 * are filtered out), and the few environment facts pi-tui reads.
 */
import type { Capabilities, TerminalColors } from "../protocol/channel.ts";
import { type DisplaySettings, settingAt } from "../protocol/preferences.ts";
import { type ImageSetting, imageProtocol } from "./images/image-protocol.ts";
import type { MousePolicy } from "./output-filter.ts";
import { parseOscColorResponse, type Terminal } from "./pi-tui-terminal.ts";
import { terminalAbilities } from "./terminal-capabilities.ts";

/** Terminal facts pi-tui reads from the environment; nothing else of the person's environment is shared. */
const SHARED_ENV = ["TERM", "TERM_PROGRAM", "COLORTERM", "TERMINAL_EMULATOR"];
const MULTIPLEXERS = ["TMUX", "ZELLIJ", "STY"];
/** Foreground, background, then a device-attributes query whose answer ends the wait for the others. */
const COLOR_QUERY = "\x1b]10;?\x07\x1b]11;?\x07\x1b[c";
/** How long a color query waits for answers before it takes what came. */
const COLOR_QUERY_MS = 100;
/** Mode 2031: the terminal reports each change of its light/dark scheme (`CSI ? 997 ; 1|2 n`). */
export const SCHEME_REPORTS_ON = "\x1b[?2031h";
export const SCHEME_REPORTS_OFF = "\x1b[?2031l";
const SCHEME_REPORT = /^\x1b\[\?997;([12])n$/;

type Env = Record<string, string | undefined>;
type Scheme = "dark" | "light";

/** What the launcher's probe writes with, and how it waits (the launcher's output and timers). */
export interface ProbeIo {
	write(data: string): void;
	later(run: () => void, ms: number): void;
}

/**
 * `COLORFGBG` ("15;0": foreground 15 on background 0, sometimes with `default` between): the scheme its
 * background's palette index suggests, the usual way (7 and 9–15 are light).
 */
export function schemeOfColorFgBg(value: string | undefined): Scheme | undefined {
	const last = value?.split(";").at(-1);
	if (!last || !/^[0-9]{1,2}$/.test(last)) return undefined;
	const index = Number(last);
	if (index > 15) return undefined;
	return index === 7 || index >= 9 ? "light" : "dark";
}

export function defaultMouse(env: Env): MousePolicy {
	return MULTIPLEXERS.some((name) => env[name] !== undefined) ? "on" : "all";
}

/** The environment facts the UI may know: a few terminal names, and whether a multiplexer is in between. */
export function sharedEnv(env: Env): Record<string, string> {
	const shared: Record<string, string> = {};
	for (const name of SHARED_ENV) {
		const value = env[name];
		if (value) shared[name] = value.slice(0, 64);
	}
	for (const name of MULTIPLEXERS) if (env[name] !== undefined) shared[name] = "1";
	return shared;
}

export class TerminalProbe {
	readonly #terminal: Terminal & { readonly modifyOtherKeysActive?: boolean };
	readonly #env: Env;
	readonly #settings: () => DisplaySettings | undefined;
	#last: string;
	/** Color replies while a query is open; undefined once it has been answered (or given up on). */
	#replies: string[] | undefined;
	#colors: TerminalColors | undefined;
	/** The scheme the terminal last reported (mode 2031), if it has. */
	#scheme: Scheme | undefined;
	#io: ProbeIo | undefined;
	/** tmux said it forwards hyperlinks (asked after start). */
	#tmuxLinks = false;
	#onColors: (colors: TerminalColors) => void = () => {};

	/** `settings`: the person's display settings now (`terminal.trueColor`, `terminal.hyperlinks`). */
	constructor(
		terminal: Terminal & { readonly modifyOtherKeysActive?: boolean },
		env: Env,
		settings: () => DisplaySettings | undefined = () => undefined,
	) {
		this.#terminal = terminal;
		this.#env = env;
		this.#settings = settings;
		this.#last = JSON.stringify(this.capabilities());
	}

	capabilities(): Capabilities {
		const platform = process.platform;
		const settings = this.#settings();
		const { trueColor, hyperlinks } = terminalAbilities(this.#env, platform, settings, this.#tmuxLinks);
		const images = imageProtocol(this.#env, imageSetting(settings));
		return {
			kittyProtocol: this.#terminal.kittyProtocolActive,
			modifyOtherKeys: this.#terminal.modifyOtherKeysActive ?? false,
			trueColor,
			hyperlinks,
			platform: platform === "linux" || platform === "darwin" || platform === "win32" ? platform : "other",
			// pi's rule for its Windows key defaults: Windows, or Linux under WSL.
			windowsKeys:
				platform === "win32" || (platform === "linux" && Boolean(this.#env.WSL_DISTRO_NAME || this.#env.WSL_INTEROP)),
			...(images ? { images } : {}),
		};
	}

	/** The capabilities if they changed since last asked (kitty negotiation finishes after start, a setting changed). */
	changed(): Capabilities | undefined {
		const now = this.capabilities();
		const text = JSON.stringify(now);
		if (text === this.#last) return undefined;
		this.#last = text;
		return now;
	}

	/** What tmux answered about forwarding hyperlinks (see `tmuxForwardsLinks`); `changed` tells the rest. */
	setTmuxLinks(forwards: boolean): void {
		this.#tmuxLinks = forwards;
	}

	get colors(): TerminalColors | undefined {
		return this.#colors;
	}

	/**
	 * Turns on the terminal's scheme reports and asks for its colors; `onColors` hears the answer, and the next
	 * one each time the terminal reports a new scheme. What the terminal does not answer, `COLORFGBG` guesses.
	 */
	start(io: ProbeIo, onColors: (colors: TerminalColors) => void): void {
		this.#io = io;
		this.#onColors = onColors;
		io.write(SCHEME_REPORTS_ON);
		this.#ask();
	}

	#ask(): void {
		if (this.#replies) return;
		this.#replies = [];
		this.#io?.write(COLOR_QUERY);
		this.#io?.later(() => this.finishColors(), COLOR_QUERY_MS);
	}

	/**
	 * Input that answers the launcher's color query, or reports a new scheme (then the colors are asked again):
	 * taken from the UI's input. False for anything else.
	 */
	takeReply(data: string): boolean {
		const scheme = SCHEME_REPORT.exec(data);
		if (scheme) {
			this.#scheme = scheme[1] === "1" ? "dark" : "light";
			this.#ask();
			return true;
		}
		if (!this.#replies) return false;
		if (data.startsWith("\x1b]1") || data.startsWith("\x1b]4;")) {
			this.#replies.push(data);
			return true;
		}
		if (/^\x1b\[\?[0-9;]*c$/.test(data)) {
			this.finishColors();
			return true;
		}
		return false;
	}

	/**
	 * The query is over (answered, or no answer in time): what came is what the terminal said, with its scheme
	 * as it last reported it, else as `COLORFGBG` suggests. Told only when it changed.
	 */
	finishColors(): void {
		const replies = this.#replies;
		if (!replies) return;
		this.#replies = undefined;
		const found: TerminalColors = {};
		for (const reply of replies) {
			const parsed = parseOscColorResponse(reply);
			if (!parsed?.rgb) continue;
			if (parsed.target === "foreground") found.foreground = parsed.rgb;
			else if (parsed.target === "background") found.background = parsed.rgb;
		}
		const scheme = this.#scheme ?? schemeOfColorFgBg(this.#env.COLORFGBG);
		if (scheme) found.scheme = scheme;
		if (!found.foreground && !found.background && !found.scheme) return;
		if (JSON.stringify(found) === JSON.stringify(this.#colors)) return;
		this.#colors = found;
		this.#onColors(found);
	}
}

/** pi's `terminal.images` from the person's settings, when it is one of its values. */
function imageSetting(settings: DisplaySettings | undefined): ImageSetting {
	const value = settings ? settingAt(settings, "terminal.images") : undefined;
	return value === "kitty" || value === "iterm2" || value === "auto" || value === false ? value : undefined;
}

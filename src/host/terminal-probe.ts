/**
 * What the launcher learns about the person's terminal and tells the UI: its capabilities (kitty keyboard,
 * modifyOtherKeys, true color, the platform's key defaults), its colors (asked by the launcher itself; the
 * worker's own queries are filtered out), and the few environment facts pi-tui reads.
 */
import type { Capabilities, TerminalColors } from "../protocol/channel.ts";
import { type ImageSetting, imageProtocol } from "./images/image-protocol.ts";
import type { MousePolicy } from "./output-filter.ts";
import { parseOscColorResponse, type Terminal } from "./pi-tui-terminal.ts";

/** Terminal facts pi-tui reads from the environment; nothing else of the person's environment is shared. */
const SHARED_ENV = ["TERM", "TERM_PROGRAM", "COLORTERM", "TERMINAL_EMULATOR"];
const MULTIPLEXERS = ["TMUX", "ZELLIJ", "STY"];
/** Foreground, background, then a device-attributes query whose answer ends the wait for the others. */
const COLOR_QUERY = "\x1b]10;?\x07\x1b]11;?\x07\x1b[c";

type Env = Record<string, string | undefined>;

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
	#last: string;
	/** Color replies while the query is open; undefined once it has been answered (or given up on). */
	#replies: string[] | undefined = [];
	#colors: TerminalColors | undefined;
	#onColors: (colors: TerminalColors) => void = () => {};
	#imageSetting: ImageSetting;

	constructor(
		terminal: Terminal & { readonly modifyOtherKeysActive?: boolean },
		env: Env,
		imageSetting?: ImageSetting,
	) {
		this.#terminal = terminal;
		this.#env = env;
		this.#imageSetting = imageSetting;
		this.#last = JSON.stringify(this.capabilities());
	}

	/** pi's `terminal.images` changed in the person's settings (`changed()` then says what that makes). */
	setImageSetting(setting: ImageSetting): void {
		this.#imageSetting = setting;
	}

	capabilities(): Capabilities {
		const platform = process.platform;
		const images = imageProtocol(this.#env, this.#imageSetting);
		return {
			kittyProtocol: this.#terminal.kittyProtocolActive,
			modifyOtherKeys: this.#terminal.modifyOtherKeysActive ?? false,
			trueColor: /truecolor|24bit/i.test(this.#env.COLORTERM ?? ""),
			platform: platform === "linux" || platform === "darwin" || platform === "win32" ? platform : "other",
			// pi's rule for its Windows key defaults: Windows, or Linux under WSL.
			windowsKeys:
				platform === "win32" || (platform === "linux" && Boolean(this.#env.WSL_DISTRO_NAME || this.#env.WSL_INTEROP)),
			...(images ? { images } : {}),
		};
	}

	/** The capabilities if they changed since last asked (kitty negotiation finishes after start). */
	changed(): Capabilities | undefined {
		const now = this.capabilities();
		const text = JSON.stringify(now);
		if (text === this.#last) return undefined;
		this.#last = text;
		return now;
	}

	get colors(): TerminalColors | undefined {
		return this.#colors;
	}

	/** Asks the terminal for its colors; `onColors` hears the answer, if one comes. */
	askColors(onColors: (colors: TerminalColors) => void): string {
		this.#onColors = onColors;
		return COLOR_QUERY;
	}

	/** Input that answers the color query (taken from the UI's input); false for anything else. */
	takeReply(data: string): boolean {
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

	/** The query is over (answered, or no answer in time): what came is what the terminal said. */
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
		if (found.foreground || found.background) {
			this.#colors = found;
			this.#onColors(found);
		}
	}
}

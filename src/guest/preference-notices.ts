/**
 * pi warns at start about the person's files it could not use ("Warning: Invalid settings file …", and its
 * "[Theme conflicts]" list), quietStartup or not. p2 says the same of the problems the launcher found in pi's
 * settings.json, keybindings.json and themes (and p2's prefs.json), and of the server's tui.json, as warning
 * lines in the transcript: at start, and again whenever a problem appears while p2 runs.
 *
 * The launcher names pi's files without their directory (the worker never learns local paths): the lines say
 * which directory in words instead.
 */
import type { StatusLineData } from "../ui/transcript/status-line.ts";

const PI_DIR = "in pi's agent directory";
const P2_DIR = "in p2's preferences directory";

/** One of the launcher's or the server's problem strings as pi would put it. */
export function describePreferenceProblem(problem: string): string {
	if (problem.startsWith("server: ")) return `Warning: ${problem.slice("server: ".length)}`;
	const theme = /^(?:theme )?(themes\/[^\s:]+):? ([\s\S]*)$/.exec(problem);
	if (theme) return `[Theme conflicts] ${theme[1]} ${PI_DIR}: ${predicate(theme[2]!)}`;
	if (problem.startsWith("themes: ")) return `[Theme conflicts] ${problem.slice("themes: ".length)}`;
	const file = /^(settings\.json|keybindings\.json|prefs\.json)(?::\s*|\s+)([\s\S]*)$/.exec(problem);
	if (file) {
		const name = file[1]!;
		const kind = name === "keybindings.json" ? "keybindings" : "settings";
		const where = name === "prefs.json" ? P2_DIR : PI_DIR;
		return `Warning: Invalid ${kind} file ${name} ${where}: ${predicate(file[2]!)}`;
	}
	return `Warning: ${problem}`;
}

/** "is not valid JSON" reads "not valid JSON" after a colon. */
function predicate(text: string): string {
	return text.replace(/^is /, "");
}

/** Where a list of problems comes from: the launcher (the person's files) or the server (its tui.json). */
export type ProblemSource = "local" | "server";

/** Says each problem once while it lasts; one that went away and comes back is said again. */
export class PreferenceNotices {
	readonly #show: (text: string, tone: StatusLineData["tone"]) => void;
	readonly #said = new Map<ProblemSource, Set<string>>();
	readonly #quiet: boolean;

	/** `quiet`: each source's first list is only remembered (a reloaded UI: its start said them already). */
	constructor(show: (text: string, tone: StatusLineData["tone"]) => void, options: { quiet?: boolean } = {}) {
		this.#show = show;
		this.#quiet = options.quiet === true;
	}

	update(source: ProblemSource, problems: readonly string[]): void {
		const said = this.#said.get(source);
		const now = new Set(problems);
		this.#said.set(source, now);
		if (!said && this.#quiet) return;
		for (const problem of now) {
			if (said?.has(problem)) continue;
			this.#show(describePreferenceProblem(source === "server" ? `server: ${problem}` : problem), "warning");
		}
	}
}

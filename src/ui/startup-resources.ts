/**
 * pi's loaded resources under the startup header: each kind under its bracketed heading, a comma list of
 * short names, or (Ctrl+O, pi's expanded startup) the full paths one per line. Hidden by quietStartup.
 */
import { truncateToWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import { shortenHome, visibleText } from "./text.ts";
import { ThemedLines } from "./themed-lines.ts";

export interface StartupResourcesData {
	/** pi's [Context]: the context files the server reads into the model's instructions for this session. */
	readonly context: readonly string[];
	/** pi's [Skills] and [Prompts], by name: the session's skills and prompt templates, as the server lists them. */
	readonly skills: readonly string[];
	/** The skills' files, shown instead of their names when expanded (pi). */
	readonly skillPaths?: readonly string[];
	readonly prompts: readonly string[];
	/** The session's directory (a context file in it is named relative to it) and the home directory (`~`). */
	readonly cwd: string | undefined;
	readonly home: string | undefined;
	/** Ctrl+O: full paths, one per line. */
	readonly expanded: boolean;
	/** quietStartup (true or "header") without --verbose. */
	readonly hidden: boolean;
}

/** A context file as pi names it in its short list: relative to the session's directory when inside it. */
function shortPath(path: string, cwd: string | undefined, home: string | undefined): string {
	const base = cwd?.replace(/\/+$/, "");
	if (base && path.startsWith(`${base}/`)) return path.slice(base.length + 1);
	return shortenHome(path, home);
}

export class StartupResources extends ThemedLines<StartupResourcesData> {
	protected build(width: number): string[] {
		const d = this.data;
		if (d.hidden) return [];
		const t = this.theme.current;
		const sections: [name: string, short: string[], full: string[]][] = [];
		if (d.context.length) {
			sections.push([
				"Context",
				d.context.map((p) => shortPath(p, d.cwd, d.home)),
				d.context.map((p) => shortenHome(p, d.home)),
			]);
		}
		const sorted = (names: readonly string[]) => [...names].sort((a, b) => a.localeCompare(b));
		const skillFiles = d.skillPaths?.length ? sorted(d.skillPaths.map((p) => shortenHome(p, d.home))) : undefined;
		if (d.skills.length) sections.push(["Skills", sorted(d.skills), skillFiles ?? sorted(d.skills)]);
		const prompts = sorted(d.prompts).map((name) => `/${name}`);
		if (prompts.length) sections.push(["Prompts", prompts, prompts]);
		if (!sections.length) return [];
		// pi's spacing: a blank line after its header, one before the first section and one after each.
		const lines = ["", ""];
		for (const [name, short, full] of sections) {
			lines.push(t.fg("mdHeading", `[${name}]`));
			const shown = (d.expanded ? full : [short.join(", ")]).map((text) => visibleText(text, false));
			for (const text of shown) lines.push(...wrapTextWithAnsi(t.fg("dim", `  ${text}`), width));
			lines.push("");
		}
		return lines.map((line) => truncateToWidth(line, width, ""));
	}
}

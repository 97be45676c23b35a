/**
 * pi's loaded resources under the startup header: each kind under its bracketed heading, a comma list of
 * short names, or (Ctrl+O, pi's expanded startup) the full paths one per line. Hidden by quietStartup.
 */
import { truncateToWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import { shortenHome, visibleText } from "./text.ts";
import { ThemedLines } from "./themed-lines.ts";

/** pi's expanded listing of skills and templates: under each scope (`project`, `user`…), one item per line. */
export interface ScopeGroup {
	readonly scope: string;
	readonly items: readonly string[];
}

export interface StartupResourcesData {
	/** pi's [Context]: the context files the server reads into the model's instructions for this session. */
	readonly context: readonly string[];
	/** pi's [Skills] and [Prompts], by name: the session's skills and prompt templates, as the server lists them. */
	readonly skills: readonly string[];
	readonly prompts: readonly string[];
	/** Expanded (Ctrl+O), pi lists the skills' files and the templates under their scopes. */
	readonly skillGroups?: readonly ScopeGroup[];
	readonly promptGroups?: readonly ScopeGroup[];
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
		const dim = (text: string) => t.fg("dim", visibleText(text, false));
		const list = (items: readonly string[]) =>
			d.expanded ? items.map((i) => dim(`  ${i}`)) : [dim(`  ${items.join(", ")}`)];
		const grouped = (groups: readonly ScopeGroup[] | undefined, fallback: readonly string[]) =>
			d.expanded && groups?.length
				? groups.flatMap((g) => [
						`  ${t.fg("accent", visibleText(g.scope, false))}`,
						...g.items.map((i) => dim(`    ${i}`)),
					])
				: list(fallback);
		const sections: [name: string, lines: string[]][] = [];
		if (d.context.length) {
			const short = d.context.map((p) => shortPath(p, d.cwd, d.home));
			const full = d.context.map((p) => shortenHome(p, d.home));
			sections.push(["Context", d.expanded ? list(full) : list(short)]);
		}
		const sorted = (names: readonly string[]) => [...names].sort((a, b) => a.localeCompare(b));
		const home = (groups: readonly ScopeGroup[] | undefined) =>
			groups?.map((g) => ({ scope: g.scope, items: g.items.map((i) => shortenHome(i, d.home)) }));
		if (d.skills.length) sections.push(["Skills", grouped(home(d.skillGroups), sorted(d.skills))]);
		const prompts = sorted(d.prompts).map((name) => `/${name}`);
		if (prompts.length) sections.push(["Prompts", grouped(d.promptGroups, prompts)]);
		if (!sections.length) return [];
		// pi's spacing: a blank line after its header, one before the first section and one after each.
		const lines = ["", ""];
		for (const [name, body] of sections) {
			lines.push(t.fg("mdHeading", `[${name}]`));
			for (const line of body) lines.push(...wrapTextWithAnsi(line, width));
			lines.push("");
		}
		return lines.map((line) => truncateToWidth(line, width, ""));
	}
}

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

/** A problem with one file: a clash (the name, and the file that kept it) or what is wrong with it. */
export interface ResourceProblem {
	readonly message: string;
	readonly path: string;
	readonly name?: string;
	/** The file that kept the name, and where it was found (`project`, `user`…). */
	readonly winner?: { readonly path: string; readonly scope: string };
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
	/** pi's [Skill warnings] and [Prompt conflicts]: shown even when quietStartup hides the rest. */
	readonly skillProblems?: readonly ResourceProblem[];
	readonly promptProblems?: readonly ResourceProblem[];
	/** The session's directory (a context file in it is named relative to it) and the home directory (`~`). */
	readonly cwd: string | undefined;
	readonly home: string | undefined;
	/** Ctrl+O: full paths, one per line. */
	readonly expanded: boolean;
	/** quietStartup (true or "header") without --verbose. */
	readonly hidden: boolean;
}

/** What the session's skills and prompt templates bring to the listing (from the plugin that finds them). */
export type LoadedResources = Pick<
	StartupResourcesData,
	"skills" | "prompts" | "skillGroups" | "promptGroups" | "skillProblems" | "promptProblems"
>;

/** A context file as pi names it in its short list: relative to the session's directory when inside it. */
function shortPath(path: string, cwd: string | undefined, home: string | undefined): string {
	const base = cwd?.replace(/\/+$/, "");
	if (base && path.startsWith(`${base}/`)) return path.slice(base.length + 1);
	return shortenHome(path, home);
}

export class StartupResources extends ThemedLines<StartupResourcesData> {
	protected build(width: number): string[] {
		const d = this.data;
		const t = this.theme.current;
		const problems = this.#problems(width);
		if (d.hidden) return problems.length ? ["", "", ...problems] : [];
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
		if (!sections.length && !problems.length) return [];
		// pi's spacing: a blank line after its header, one before the first section and one after each.
		const lines = ["", ""];
		for (const [name, body] of sections) {
			lines.push(t.fg("mdHeading", `[${name}]`));
			for (const line of body) lines.push(...wrapTextWithAnsi(line, width));
			lines.push("");
		}
		return [...lines.map((line) => truncateToWidth(line, width, "")), ...problems];
	}

	/** pi's warnings: each clash with the file kept (✓) and the ones skipped (✗), then each file's problem. */
	#problems(width: number): string[] {
		const d = this.data;
		const t = this.theme.current;
		const path = (p: string) => visibleText(shortenHome(p, d.home), false);
		const lines: string[] = [];
		const section = (title: string, problems: readonly ResourceProblem[] | undefined) => {
			if (!problems?.length) return;
			lines.push(t.fg("warning", title));
			const clashes = new Map<string, ResourceProblem[]>();
			for (const p of problems) {
				if (p.name !== undefined && p.winner) clashes.set(p.name, [...(clashes.get(p.name) ?? []), p]);
			}
			for (const [name, lost] of clashes) {
				const kept = lost[0]!.winner!;
				lines.push(t.fg("warning", `  "${visibleText(name, false)}" collision:`));
				lines.push(t.fg("dim", `    ${t.fg("success", "✓")} auto (${kept.scope}) ${path(kept.path)}`));
				for (const p of lost) lines.push(t.fg("dim", `    ${t.fg("warning", "✗")} ${path(p.path)} (skipped)`));
			}
			for (const p of problems) {
				if (p.name !== undefined && p.winner) continue;
				lines.push(t.fg("warning", `  ${path(p.path)}`));
				for (const line of p.message.split("\n").filter((l) => l.trim())) {
					lines.push(t.fg("warning", `    ${visibleText(line, false)}`));
				}
			}
			lines.push("");
		};
		section("[Skill warnings]", d.skillProblems);
		section("[Prompt conflicts]", d.promptProblems);
		return lines.flatMap((line) => wrapTextWithAnsi(line, width)).map((line) => truncateToWidth(line, width, ""));
	}
}

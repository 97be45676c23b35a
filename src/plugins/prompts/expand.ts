/**
 * What `/skill:name args` and `/name args` become before they are sent, as pi makes them: a skill's block (its
 * instructions and where it lives, then the arguments as the request), a template's text with its arguments,
 * or the text as typed when neither matches.
 */
import { readFileSync } from "node:fs";
import { splitArgs, substituteArgs } from "./args.ts";
import { parseFrontmatter, type Resources } from "./discovery.ts";

export interface Expansion {
	readonly text: string;
	readonly kind: "template" | "skill" | "none";
}

/** pi's skill block: the skill's instructions between tags naming it and its file, then what was asked. */
export function skillBlock(name: string, path: string, dir: string, body: string, args: string): string {
	const block = `<skill name="${name}" location="${path}">\nReferences are relative to ${dir}.\n\n${body}\n</skill>`;
	return args ? `${block}\n\n${args}` : block;
}

/** Skills first (their file is read now, as pi does), then templates; an unknown name is sent as typed. */
export function expandInput(
	text: string,
	resources: Resources,
	limit = Number.POSITIVE_INFINITY,
	read: (path: string, encoding: "utf8") => string = readFileSync,
): Expansion {
	const skill = expandSkill(text, resources, read);
	if (skill !== null) return { text: skill, kind: "skill" };
	const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
	const template = match ? resources.templates.find((t) => t.name === match[1]) : undefined;
	if (!match || !template) return { text, kind: "none" };
	return { text: substituteArgs(template.content, splitArgs(match[2] ?? ""), limit), kind: "template" };
}

function expandSkill(
	text: string,
	resources: Resources,
	read: (path: string, encoding: "utf8") => string,
): string | null {
	if (!text.startsWith("/skill:")) return null;
	// pi ends the name at the first space (not at any whitespace).
	const space = text.indexOf(" ");
	const name = space < 0 ? text.slice(7) : text.slice(7, space);
	const args = space < 0 ? "" : text.slice(space + 1).trim();
	const skill = resources.skills.find((s) => s.name === name);
	if (!skill) return null;
	try {
		const body = parseFrontmatter(read(skill.path, "utf8")).body.trim();
		return skillBlock(skill.name, skill.path, skill.dir, body, args);
	} catch {
		// Gone or unreadable since it was listed: the text goes as typed (pi), and the listing catches up.
		return null;
	}
}

import type { Skill } from "./discovery.ts";

function escapeXml(text: string): string {
	return text
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(/"/g, "&quot;")
		.replace(/'/g, "&apos;");
}

/**
 * The system prompt's `<skills>` section, in pi 1.6.0's words and Agent Skills' XML: each skill's name, description and
 * file, so the model reads SKILL.md with the read tool when a task matches. Skills hidden from the model
 * (`disable-model-invocation`) are left out; with none left there is no section.
 */
export function skillsPrompt(skills: readonly Skill[]): string | null {
	const shown = skills.filter((s) => !s.hidden);
	if (!shown.length) return null;
	return [
		"<skills>",
		"The following skills provide specialized instructions for specific tasks.",
		"Use the read tool to load a skill's file when the task matches its description.",
		"Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.",
		"",
		"<available_skills>",
		...shown.flatMap((s) => [
			"  <skill>",
			`    <name>${escapeXml(s.name)}</name>`,
			`    <description>${escapeXml(s.description)}</description>`,
			`    <location>${escapeXml(s.path)}</location>`,
			"  </skill>",
		]),
		"</available_skills>",
		"</skills>",
	].join("\n");
}

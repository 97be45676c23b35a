import { Box, type Component, Markdown, Text } from "@earendil-works/pi-tui";
import { visibleText } from "../text.ts";
import type { ThemeRef } from "../theme/theme-ref.ts";

/** A message that invoked a skill (`/skill:name args`): the skill's block, and what the person asked with it. */
export interface SkillBlock {
	readonly name: string;
	readonly location: string;
	readonly content: string;
	/** The arguments after the skill's name, sent after its block; undefined when there were none. */
	readonly request: string | undefined;
}

/** The skill block a message starts with, in pi's exact form, or null for any other message. */
export function parseSkillBlock(text: string): SkillBlock | null {
	const match = /^<skill name="([^"]+)" location="([^"]+)">\n([\s\S]*?)\n<\/skill>(?:\n\n([\s\S]+))?$/.exec(text);
	if (!match) return null;
	return { name: match[1]!, location: match[2]!, content: match[3]!, request: match[4]?.trim() || undefined };
}

/**
 * pi's skill invocation block on the custom-message background: collapsed, `[skill] name (ctrl+o to expand)`;
 * expanded (Ctrl+O, with the tool output), the label and the skill's instructions under its name.
 */
export function skillBox(theme: ThemeRef, skill: SkillBlock, expanded: boolean, expandKey: string): Component {
	const t = () => theme.current;
	const box = new Box(1, 1, (text) => t().bg("customMessageBg", text));
	const label = t().fg("customMessageLabel", t().bold("[skill]"));
	const name = visibleText(skill.name, false);
	if (expanded) {
		box.addChild(new Text(label, 0, 0));
		box.addChild(
			new Markdown(`**${name}**\n\n${visibleText(skill.content)}`, 0, 0, theme.markdownTheme(), {
				color: (s) => t().fg("customMessageText", s),
			}),
		);
	} else {
		const hint = expandKey ? t().fg("dim", ` (${expandKey} to expand)`) : "";
		box.addChild(new Text(`${label} ${t().fg("customMessageText", name)}${hint}`, 0, 0));
	}
	return box;
}

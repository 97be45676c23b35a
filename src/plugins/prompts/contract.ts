import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

/** What a person may type is at most this long (the chat's own limit for a message). */
export const MAX_INPUT = 256 * 1024;
/** An expanded template or skill block goes as a message: the same limit. */
export const MAX_EXPANDED = 256 * 1024;

const ResourceScope = lazy(() => type("'project' | 'user' | 'server'"));

export const TemplateInfo = lazy(() =>
	type({
		name: "string",
		description: "string",
		"argumentHint?": "string",
		scope: ResourceScope,
		/** Its file on the session's machine (pi's expanded startup listing). */
		path: "string",
	}),
);
export type TemplateInfo = typeof TemplateInfo.infer;

export const SkillInfo = lazy(() =>
	type({ name: "string", description: "string", scope: ResourceScope, path: "string", hidden: "boolean" }),
);
export type SkillInfo = typeof SkillInfo.infer;

export const ResourceWarningInfo = lazy(() =>
	type({ kind: "'skill' | 'prompt'", message: "string", path: "string", "name?": "string", "winner?": "string" }),
);
export type ResourceWarningInfo = typeof ResourceWarningInfo.infer;

export const PromptsState = lazy(() =>
	type({
		templates: TemplateInfo.array(),
		skills: SkillInfo.array(),
		/** pi's [Skill warnings] and [Prompt conflicts]. */
		warnings: ResourceWarningInfo.array(),
	}),
);
export type PromptsState = typeof PromptsState.infer;

export const ExpandArgs = lazy(() => type({ text: `string <= ${MAX_INPUT}` }));
export const ExpandResult = lazy(() =>
	type({
		/** What is sent: the template's text with its arguments, the skill block, or the text as typed. */
		text: `string <= ${MAX_EXPANDED}`,
		/** What it was: a template, a skill, or neither (sent as typed). */
		kind: "'template' | 'skill' | 'none'",
	}),
);
export type ExpandResult = typeof ExpandResult.infer;

const participant = { state: PromptsState, methods: ["expand"] as const };

/**
 * A session's prompt templates and skills (pi's `/name args` and `/skill:name args`), read on the session's
 * machine and kept current as their files change. Those who may send list and expand them; expansion happens
 * here, so every client sends the same text. View-only guests never receive them.
 */
export const promptsContract = defineContract({
	name: "prompts",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: { expand: method(ExpandArgs, ExpandResult) },
	variants: { deviceOwner: participant, owner: participant, full: participant, view: null },
});

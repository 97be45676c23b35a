/**
 * The open session's prompt templates and skills in the editor, as pi's: the slash list shows them after the
 * commands (templates with their argument hint, then `skill:<name>`), and `/name args` or `/skill:name args`
 * is sent as the server expands it. The header lists them through the `promptResources` service. Only those
 * who may send open them; a view-only guest never receives them.
 */
import type { SlashEntry, SlashExpander } from "../../guest/commands.ts";
import type { GuestPlugin } from "../../guest/plugin.ts";
import { isParticipantRole } from "../../protocol/roles.ts";
import type { LoadedResources } from "../../ui/startup-resources.ts";
import { visibleText } from "../../ui/text.ts";
import { type PromptsState, promptsContract } from "./contract.ts";

export interface PromptResourcesService {
	/** Calls `listener` now and whenever the open session's resources change. */
	onChange(listener: (loaded: LoadedResources) => void): () => void;
}

declare module "../../guest/services.ts" {
	interface GuestServices {
		promptResources: PromptResourcesService;
	}
}

/** pi's source tag before a description: `[p]` the project's, `[u]` the person's, `[s]` the server's own. */
const TAGS = { project: "p", user: "u", server: "s" } as const;
type Scope = keyof typeof TAGS;
const SCOPES: readonly Scope[] = ["project", "user", "server"];

function tagged(scope: Scope, description: string): string {
	return description ? `[${TAGS[scope]}] ${description}` : `[${TAGS[scope]}]`;
}

/**
 * The slash entries of a session's resources, in pi's order: templates, then skills (unless pi's
 * `enableSkillCommands` is off; a typed `/skill:name` still works then).
 */
export function slashEntries(state: PromptsState | undefined, skills = true): SlashEntry[] {
	if (!state) return [];
	// Shown in the list as text; a name that cannot be typed as one word is left out.
	const shown = (text: string) => visibleText(text, false);
	const typable = (name: string) => /^[^\s\p{Cc}]+$/u.test(name);
	return [
		...state.templates
			.filter((t) => typable(t.name))
			.map((t) => ({
				name: t.name,
				description: shown(tagged(t.scope, t.description)),
				...(t.argumentHint ? { argumentHint: shown(t.argumentHint) } : {}),
			})),
		...state.skills
			.filter((s) => typable(s.name))
			.map((s) => ({
				name: `skill:${s.name}`,
				description: shown(tagged(s.scope, s.description)),
				...(skills ? {} : { unlisted: true }),
			})),
	];
}

/** pi's groups, project first, each sorted by file; the server's own templates last. */
function scopeGroups<T extends { scope: Scope; path: string }>(items: readonly T[], show: (item: T) => string) {
	return SCOPES.map((scope) => ({
		scope,
		items: items
			.filter((i) => i.scope === scope)
			.sort((a, b) => a.path.localeCompare(b.path))
			.map(show),
	})).filter((g) => g.items.length);
}

/** What the header lists: skills and templates by name, expanded under their scopes, and pi's warnings. */
export function loadedNames(state: PromptsState | undefined): LoadedResources {
	const scopeOf = new Map<string, string>();
	for (const item of [...(state?.skills ?? []), ...(state?.templates ?? [])]) scopeOf.set(item.path, item.scope);
	const problems = (kind: "skill" | "prompt") =>
		(state?.warnings ?? [])
			.filter((w) => w.kind === kind)
			.map((w) => ({
				message: w.message,
				path: w.path,
				...(w.name !== undefined ? { name: w.name } : {}),
				...(w.winner !== undefined ? { winner: { path: w.winner, scope: scopeOf.get(w.winner) ?? "" } } : {}),
			}));
	return {
		skills: state?.skills.map((s) => s.name) ?? [],
		prompts: state?.templates.map((t) => t.name) ?? [],
		skillGroups: scopeGroups(state?.skills ?? [], (s) => s.path),
		promptGroups: scopeGroups(state?.templates ?? [], (t) => `/${t.name}`),
		skillProblems: problems("skill"),
		promptProblems: problems("prompt"),
	};
}

export const promptsPlugin: GuestPlugin = {
	name: "prompts",
	register(ctx) {
		// The open session's templates and skills, for those who may send (refused or gone: nothing is listed,
		// and what is typed is sent as it is).
		const prompts = ctx.objects.follow(promptsContract, (session) =>
			session.id !== undefined && session.role !== undefined && isParticipantRole(session.role)
				? { session: session.id }
				: undefined,
		);
		const listeners = new Set<(loaded: LoadedResources) => void>();
		const publish = (state: PromptsState | undefined) => {
			const loaded = loadedNames(state);
			for (const listener of [...listeners]) listener(loaded);
		};
		const expander: SlashExpander = {
			entries: () => slashEntries(prompts.state, ctx.preferences.effective().settings.enableSkillCommands !== false),
			async expand(text) {
				const current = prompts.ref;
				if (!current) return text;
				await current.ready;
				return (await current.call("expand", { text })).text;
			},
		};
		const removals = [
			ctx.commands.addExpander(expander),
			ctx.services.provide("promptResources", {
				onChange(listener) {
					listeners.add(listener);
					listener(loadedNames(prompts.state));
					return () => listeners.delete(listener);
				},
			}),
			prompts.onChange(publish),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			prompts.close();
		};
	},
};

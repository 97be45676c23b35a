import type { FgToken } from "../protocol/theme-tokens.ts";
import type * as Lowlight from "./deferred/lowlight.ts";
import type { Theme } from "./theme/theme.ts";

/**
 * Grammars are registered when first needed: registering all of `common` costs about 200 ms of the worker's
 * start. A name is tried directly; an alias or extension (`ts`, `py`) registers the rest once, to learn them.
 */
let loaded: { lowlight: ReturnType<typeof Lowlight.createLowlight>; common: typeof Lowlight.common } | undefined;
let allRegistered = false;

/**
 * highlight.js is parsed and evaluated when code is first highlighted, not when the UI starts: its grammars are
 * a fifth of the UI bundle, which carries them as text (`src/ui/deferred/`).
 */
function highlighter(): NonNullable<typeof loaded> {
	if (!loaded) {
		const { common, createLowlight } = require("./deferred/lowlight.ts") as typeof Lowlight;
		loaded = { lowlight: createLowlight(), common };
	}
	return loaded;
}

function ensure(name: string): boolean {
	const { lowlight, common } = highlighter();
	if (lowlight.registered(name)) return true;
	const grammar = (common as Record<string, (typeof common)[string]>)[name];
	if (grammar) {
		lowlight.register(name, grammar);
		return true;
	}
	if (!allRegistered) {
		allRegistered = true;
		lowlight.register(common);
	}
	return lowlight.registered(name);
}

/** highlight.js scopes onto pi's syntax tokens; anything else is plain `text`. */
const SCOPES: Record<string, FgToken> = {
	keyword: "syntaxKeyword",
	function: "syntaxFunction",
	title: "syntaxFunction",
	built_in: "syntaxType",
	type: "syntaxType",
	class: "syntaxType",
	string: "syntaxString",
	regexp: "syntaxString",
	number: "syntaxNumber",
	literal: "syntaxNumber",
	comment: "syntaxComment",
	attr: "syntaxVariable",
	variable: "syntaxVariable",
	params: "syntaxVariable",
	operator: "syntaxOperator",
	punctuation: "syntaxPunctuation",
	tag: "syntaxKeyword",
};

interface HastNode {
	type: string;
	value?: string;
	properties?: { className?: string[] };
	children?: HastNode[];
}

/** A language name or file extension lowlight knows, else undefined. */
export function languageOf(nameOrExtension: string | undefined): string | undefined {
	if (!nameOrExtension) return undefined;
	const name = nameOrExtension.toLowerCase();
	return ensure(name) ? name : undefined;
}

export function languageOfPath(path: string): string | undefined {
	const base = path.split("/").at(-1) ?? "";
	const dot = base.lastIndexOf(".");
	return dot > 0 ? languageOf(base.slice(dot + 1)) : undefined;
}

/** Highlighted code by theme, then by language and code: a streamed answer renders its finished code blocks again. */
const highlighted = new WeakMap<Theme, Map<string, string[] | undefined>>();
const MAX_KEPT = 200;

/**
 * Code highlighted into pi's syntax tokens, one string per line; undefined when the language is unknown (the
 * caller keeps its own color). The input is already visible text: no control characters.
 */
export function highlightLines(code: string, language: string | undefined, theme: Theme): string[] | undefined {
	let kept = highlighted.get(theme);
	if (!kept) {
		kept = new Map();
		highlighted.set(theme, kept);
	}
	const key = `${language ?? ""}\0${code}`;
	if (kept.has(key)) return kept.get(key)?.slice();
	const lines = highlightNow(code, language, theme);
	// The oldest goes first when full (a Map iterates in insertion order).
	if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
	kept.set(key, lines);
	return lines?.slice();
}

function highlightNow(code: string, language: string | undefined, theme: Theme): string[] | undefined {
	const lang = languageOf(language);
	if (!lang) return undefined;
	let tree: HastNode;
	try {
		tree = highlighter().lowlight.highlight(lang, code) as unknown as HastNode;
	} catch {
		return undefined;
	}
	const lines: string[] = [""];
	const emit = (text: string, token: FgToken) => {
		const parts = text.split("\n");
		for (let i = 0; i < parts.length; i++) {
			if (i > 0) lines.push("");
			if (parts[i]) lines[lines.length - 1] += theme.fg(token, parts[i]!);
		}
	};
	const walk = (node: HastNode, token: FgToken) => {
		if (node.type === "text") return emit(node.value ?? "", token);
		const scope = node.properties?.className
			?.find((c) => c.startsWith("hljs-"))
			?.slice(5)
			.split(".")[0];
		const next = (scope && SCOPES[scope]) || token;
		for (const child of node.children ?? []) walk(child, next);
	};
	walk(tree, "text");
	if (lines.length > 1 && lines.at(-1) === "") lines.pop();
	return lines;
}

import type { AgentTool } from "@earendil-works/pi-agent-core";
import { arr, obj, str } from "@earendil-works/pi-schema";
import { diffLines } from "diff";
import { type Environment, errorCode } from "../../env/environment.ts";
import { resolveToolPath } from "./paths.ts";

const parameters = obj({
	path: str({ description: "Path to the file to edit (relative or absolute)" }),
	edits: arr(
		obj({
			oldText: str({
				description:
					"Exact text to replace. It must occur exactly once in the original file and not overlap any other edit's oldText.",
			}),
			newText: str({ description: "The replacement text." }),
		}),
		{ description: "One or more replacements, each matched against the original file (not one after another)." },
	),
});

export interface EditDetails {
	/** Display diff: `+N line`, `-N line`, ` N line` and `...` between hunks, with 4 lines of context. */
	diff: string;
	/** First changed line in the new file (1-based). */
	firstChangedLine: number | undefined;
}

const CONTEXT = 4;

/** pi's display diff: line-numbered +/- lines with a few lines of context around each change. */
export function displayDiff(before: string, after: string): EditDetails {
	const width = String(Math.max(before.split("\n").length, after.split("\n").length)).length;
	const out: string[] = [];
	let oldLine = 1;
	let newLine = 1;
	let first: number | undefined;
	const parts = diffLines(before, after);
	const num = (n: number) => String(n).padStart(width, " ");
	for (let i = 0; i < parts.length; i++) {
		const part = parts[i]!;
		const lines = part.value.split("\n");
		if (lines.at(-1) === "") lines.pop();
		if (part.added || part.removed) {
			first ??= newLine;
			for (const line of lines) {
				if (part.added) out.push(`+${num(newLine++)} ${line}`);
				else out.push(`-${num(oldLine++)} ${line}`);
			}
			continue;
		}
		const before = i > 0;
		const after = i < parts.length - 1;
		const show = new Set<number>();
		if (before) for (let k = 0; k < Math.min(CONTEXT, lines.length); k++) show.add(k);
		if (after) for (let k = Math.max(0, lines.length - CONTEXT); k < lines.length; k++) show.add(k);
		let skipped = false;
		for (let k = 0; k < lines.length; k++) {
			if (show.has(k)) {
				if (skipped) out.push(` ${" ".repeat(width)} ...`);
				skipped = false;
				out.push(` ${num(oldLine)} ${lines[k]}`);
			} else skipped = true;
			oldLine++;
			newLine++;
		}
		if (skipped && before) out.push(` ${" ".repeat(width)} ...`);
	}
	return { diff: out.join("\n"), firstChangedLine: first };
}

function occurrences(text: string, needle: string): number[] {
	const found: number[] = [];
	for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
	return found;
}

export function editTool(env: Environment, cwd: string): AgentTool<typeof parameters, EditDetails> {
	return {
		name: "edit",
		label: "edit",
		description:
			"Edit one file by exact text replacement. Every edits[].oldText must match a unique, non-overlapping part of the original file; merge nearby changes into one edit.",
		parameters,
		async execute(_id, { path, edits }, signal) {
			if (signal?.aborted) throw new Error("Operation aborted");
			if (edits.length === 0) throw new Error(`No edits given for ${path}.`);
			const absolute = await resolveToolPath(env, cwd, path);
			let raw: string;
			try {
				raw = (await env.readFile(absolute)).toString("utf8");
			} catch (error) {
				const code = errorCode(error);
				if (!code) throw error;
				throw new Error(`Could not edit file: ${path}. Error code: ${code}.`);
			}
			const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
			const body = raw.slice(bom.length);
			const crlf = body.includes("\r\n");
			const text = crlf ? body.replace(/\r\n/g, "\n") : body;
			const one = edits.length === 1;
			const spans = edits.map((edit, index) => {
				const oldText = edit.oldText.replace(/\r\n/g, "\n");
				const name = one ? "the text" : `edits[${index}]`;
				if (oldText === "")
					throw new Error(`${one ? "oldText" : `edits[${index}].oldText`} must not be empty in ${path}.`);
				const at = occurrences(text, oldText);
				if (at.length === 0) {
					throw new Error(
						`Could not find ${one ? "the exact text" : name} in ${path}. The old text must match exactly including all whitespace and newlines.`,
					);
				}
				if (at.length > 1) {
					throw new Error(
						`Found ${at.length} occurrences of ${name} in ${path}. The text must be unique. Please provide more context to make it unique.`,
					);
				}
				return { index, start: at[0]!, end: at[0]! + oldText.length, newText: edit.newText.replace(/\r\n/g, "\n") };
			});
			spans.sort((a, b) => a.start - b.start);
			for (let i = 1; i < spans.length; i++) {
				const prev = spans[i - 1]!;
				const cur = spans[i]!;
				if (cur.start < prev.end) {
					throw new Error(`edits[${prev.index}] and edits[${cur.index}] overlap in ${path}. Merge them into one edit.`);
				}
			}
			let next = "";
			let pos = 0;
			for (const s of spans) {
				next += text.slice(pos, s.start) + s.newText;
				pos = s.end;
			}
			next += text.slice(pos);
			if (next === text) throw new Error(`No changes made to ${path}. The replacement produced identical content.`);
			const details = displayDiff(text, next);
			if (signal?.aborted) throw new Error("Operation aborted");
			await env.writeFile(absolute, bom + (crlf ? next.replace(/\n/g, "\r\n") : next));
			return {
				content: [{ type: "text", text: `Successfully replaced ${edits.length} block(s) in ${path}.` }],
				details,
			};
		},
	};
}

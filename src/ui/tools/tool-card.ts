import { Box, Spacer, Text, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import { highlightLines, languageOfPath } from "../highlight.ts";
import { type ImageItem, InlineImage, type InlineImageParts, imagePlaceholder } from "../inline-image.ts";
import { shortenHome, visibleText } from "../text.ts";
import type { Theme } from "../theme/theme.ts";
import { ThemedItem } from "../transcript/themed.ts";
import { diffLines } from "./diff.ts";

export interface ToolCardData {
	readonly name: string;
	readonly args: Readonly<Record<string, unknown>>;
	readonly state: "pending" | "success" | "error";
	readonly output: string;
	readonly details: Readonly<Record<string, unknown>> | null;
	/** How long it ran (finished) or has been running (pending). */
	readonly elapsedMs: number | null;
	readonly expanded: boolean;
	readonly home: string | undefined;
	/** Images the tool gave back, and the cells wide they are drawn (none: pi's text placeholders, in the output). */
	readonly images?: readonly ImageItem[];
	readonly imageCells?: number;
}

/** What a tool renderer returns: the title line and the body lines (already styled, not yet wrapped). */
export interface ToolView {
	readonly title: string;
	readonly body: readonly string[];
}

export type ToolRenderer = (data: ToolCardData, theme: Theme, width: number) => ToolView;

const COLLAPSED_BASH_LINES = 5;
const COLLAPSED_LINES = 10;

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));
const path = (data: ToolCardData) =>
	shortenHome(visibleText(str(data.args.path ?? data.args.file_path), false), data.home);
const seconds = (ms: number | null) => `${((ms ?? 0) / 1000).toFixed(1)}s`;
const lines = (text: string) => (text === "" ? [] : visibleText(text).replace(/\n$/, "").split("\n"));
/** A "… (N more lines, ctrl+o to expand)" hint: muted, with the key in dim. */
const more = (t: Theme, text: string) =>
	text
		.split("ctrl+o")
		.map((part) => t.fg("muted", part))
		.join(t.fg("dim", "ctrl+o"));

/** File contents highlighted by the file's extension (pi), else in the output color. */
function code(text: string, file: string, t: Theme): string[] {
	const shown = lines(text);
	return highlightLines(shown.join("\n"), languageOfPath(file), t) ?? shown.map((l) => t.fg("toolOutput", l));
}

function bash(data: ToolCardData, t: Theme, width: number): ToolView {
	const command = visibleText(str(data.args.command), false);
	const timeout = typeof data.args.timeout === "number" ? t.fg("muted", ` (timeout ${data.args.timeout}s)`) : "";
	const body: string[] = [];
	let output = lines(data.output).map((l) => t.fg("toolOutput", l));
	if (data.expanded) body.push("", ...output);
	else if (output.length) {
		// The last visual lines: wrapped at the card's width, then the tail.
		const visual = output.flatMap((l) => wrapTextWithAnsi(l, Math.max(1, width)));
		const hidden = visual.length - COLLAPSED_BASH_LINES;
		output = hidden > 0 ? visual.slice(hidden) : visual;
		body.push("");
		if (hidden > 0) body.push(more(t, `... (${hidden} earlier lines, ctrl+o to expand)`));
		body.push(...output);
	}
	const exitCode = data.details?.exitCode;
	if (typeof exitCode === "number" && exitCode !== 0)
		body.push(t.fg("toolOutput", `Command exited with code ${exitCode}`));
	const fullPath = data.details?.fullOutputPath;
	if (data.details?.truncated && typeof fullPath === "string") {
		body.push(t.fg("warning", `[Full output: ${visibleText(fullPath, false)}]`));
	}
	body.push(
		"",
		t.fg("muted", data.state === "pending" ? `Elapsed ${seconds(data.elapsedMs)}` : `Took ${seconds(data.elapsedMs)}`),
	);
	return { title: t.bold(t.fg("toolTitle", `$ ${command}`)) + timeout, body };
}

function read(data: ToolCardData, t: Theme): ToolView {
	const offset = data.args.offset;
	const limit = data.args.limit;
	const range =
		typeof offset === "number" || typeof limit === "number"
			? t.fg(
					"warning",
					`:${typeof offset === "number" ? offset : 1}${typeof limit === "number" ? `-${(typeof offset === "number" ? offset : 1) + limit - 1}` : ""}`,
				)
			: "";
	const title = `${t.bold(t.fg("toolTitle", "read"))} ${t.fg("accent", path(data))}${range}`;
	if (data.state === "error") return { title, body: ["", ...lines(data.output).map((l) => t.fg("toolOutput", l))] };
	if (!data.expanded || data.state === "pending") return { title, body: [] };
	return { title, body: ["", ...code(data.output, path(data), t)] };
}

function write(data: ToolCardData, t: Theme): ToolView {
	const title = `${t.bold(t.fg("toolTitle", "write"))} ${t.fg("accent", path(data))}`;
	const content = code(str(data.args.content), path(data), t);
	const body = [""];
	if (data.expanded || content.length <= COLLAPSED_LINES) body.push(...content);
	else {
		body.push(...content.slice(0, COLLAPSED_LINES));
		body.push(
			more(t, `... (${content.length - COLLAPSED_LINES} more lines, ${content.length} total, ctrl+o to expand)`),
		);
	}
	if (data.state === "error") body.push("", t.fg("error", visibleText(data.output)));
	return { title, body };
}

function edit(data: ToolCardData, t: Theme): ToolView {
	const title = `${t.bold(t.fg("toolTitle", "edit"))} ${t.fg("accent", path(data))}`;
	if (data.state === "error") return { title, body: ["", t.fg("error", visibleText(data.output))] };
	const diff = typeof data.details?.diff === "string" ? data.details.diff : "";
	if (!diff) return { title, body: [] };
	return { title, body: ["", ...diffLines(visibleText(diff), t)] };
}

function search(data: ToolCardData, t: Theme): ToolView {
	const name = data.name;
	const pattern = visibleText(str(data.args.pattern), false);
	const where = data.args.path !== undefined ? ` in ${path(data)}` : "";
	const shown = name === "grep" ? `/${pattern}/` : pattern;
	const title = `${t.bold(t.fg("toolTitle", name))} ${name === "ls" ? t.fg("accent", path(data) || ".") : `${t.fg("accent", shown)}${t.fg("toolOutput", where)}`}`;
	return { title, body: outputBody(data, t, name === "grep" ? 15 : COLLAPSED_LINES) };
}

function outputBody(data: ToolCardData, t: Theme, collapsedLines: number): string[] {
	const output = lines(data.output).map((l) => t.fg("toolOutput", l));
	if (!output.length) return [];
	if (data.expanded || output.length <= collapsedLines) return ["", ...output];
	return [
		"",
		...output.slice(0, collapsedLines),
		more(t, `... (${output.length - collapsedLines} more lines, ctrl+o to expand)`),
	];
}

/** A tool without its own renderer: the bold name, the arguments as key=value, the first lines of output. */
export function generic(data: ToolCardData, t: Theme): ToolView {
	const entries = Object.entries(data.args);
	if (data.expanded) {
		const args = entries.map(([k, v]) => t.fg("muted", visibleText(`${k}: ${str(v)}`)));
		return {
			title: t.bold(t.fg("toolTitle", visibleText(data.name, false))),
			body: [...args, ...outputBody(data, t, COLLAPSED_LINES)],
		};
	}
	const args = visibleText(entries.map(([k, v]) => `${k}=${str(v)}`).join(" "), false);
	const cut = args.length > 100 ? `${args.slice(0, 100)}…` : args;
	return {
		title: `${t.bold(t.fg("toolTitle", visibleText(data.name, false)))}${cut ? ` ${t.fg("muted", cut)}` : ""}`,
		body: outputBody(data, t, COLLAPSED_LINES),
	};
}

export const TOOL_RENDERERS: Readonly<Record<string, ToolRenderer>> = {
	bash,
	read,
	write,
	edit,
	grep: search,
	find: search,
	ls: search,
};

/** pi's tool card: a blank line, then a full-width box on the state's background with one row of padding. */
export class ToolCard extends ThemedItem<ToolCardData> {
	readonly #resolve: (data: ToolCardData) => ToolRenderer;
	readonly #images: InlineImageParts | undefined;
	#width = 0;

	constructor(
		theme: ConstructorParameters<typeof ThemedItem<ToolCardData>>[0],
		data: ToolCardData,
		resolve: (data: ToolCardData) => ToolRenderer = (d) => TOOL_RENDERERS[d.name] ?? generic,
		images?: InlineImageParts,
	) {
		super(theme, data);
		this.#resolve = resolve;
		this.#images = images;
	}

	override render(width: number): string[] {
		// The collapsed bash tail depends on the width: rebuild when it changes.
		if (width !== this.#width) {
			this.#width = width;
			this.rebuild();
		}
		return super.render(width);
	}

	protected build(): void {
		const t = () => this.theme.current;
		const token =
			this.data.state === "pending" ? "toolPendingBg" : this.data.state === "success" ? "toolSuccessBg" : "toolErrorBg";
		const renderer = this.#resolve(this.data);
		const images = this.data.images ?? [];
		const parts = this.data.imageCells === undefined ? undefined : this.#images;
		// pi: images nothing draws are placeholders after the tool's text output.
		const placeholders = parts ? [] : images.map(imagePlaceholder);
		const output = [this.data.output, ...placeholders].filter(Boolean).join("\n");
		const data = placeholders.length ? { ...this.data, output } : this.data;
		const view = renderer(data, t(), Math.max(1, this.#width - 2));
		this.addChild(new Spacer(1));
		const box = new Box(1, 1, (text) => t().bg(token, text));
		box.addChild(new Text([view.title, ...view.body].join("\n"), 0, 0));
		this.addChild(box);
		// pi: each drawn image under the card, after a blank row.
		for (const image of parts ? images : []) {
			this.addChild(new Spacer(1));
			const source = parts!.source(image);
			this.addChild(new InlineImage(parts!.display, source, this.data.imageCells, (s) => t().fg("toolOutput", s)));
		}
	}
}

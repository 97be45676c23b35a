/**
 * Artifacts in the terminal: the `artifact` tool's card (name, version, the first lines; Markdown rendered when
 * expanded) and /artifacts, which lists the session's artifacts and shows one inline (Markdown rendered, HTML and
 * SVG as source with a "Source only" note). Everyone who sees the session may look.
 */
import { Markdown, type SelectItem } from "@earendil-works/pi-tui";
import type { Followed } from "../../guest/follow.ts";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { highlightLines, languageOfPath } from "../../ui/highlight.ts";
import { FilterSelector } from "../../ui/selector.ts";
import { visibleText } from "../../ui/text.ts";
import { TextViewer, wholeText } from "../../ui/text-viewer.ts";
import type { Theme } from "../../ui/theme/theme.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import type { ToolCardData, ToolView } from "../../ui/tools/tool-card.ts";
import { type ArtifactKind, artifactsContract, type ReadArtifactResult } from "./contract.ts";

const COLLAPSED_LINES = 8;

function sizeText(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const kindOfCard = (data: ToolCardData): string => {
	const fromDetails = data.details?.kind;
	if (typeof fromDetails === "string") return fromDetails;
	const kind = str(data.args.kind);
	if (kind) return kind;
	const ext = /\.([A-Za-z0-9]+)$/.exec(str(data.args.name))?.[1]?.toLowerCase();
	return !ext || ext === "md" ? "markdown" : ext === "html" || ext === "htm" ? "html" : ext === "svg" ? "svg" : "text";
};

/** The lines of a document as the viewer and the expanded card show it. */
function documentLines(text: string, kind: string, name: string, theme: ThemeRef, width: number): string[] {
	const shown = visibleText(text);
	const t = theme.current;
	if (kind === "markdown") return [...new Markdown(shown, 0, 0, theme.markdownTheme()).render(Math.max(1, width))];
	const rows = shown.replace(/\n$/, "").split("\n");
	const language = kind === "html" ? "xml" : kind === "svg" ? "xml" : languageOfPath(name);
	return highlightLines(rows.join("\n"), language, t) ?? rows.map((l) => t.fg("toolOutput", l));
}

/** The artifact tool's card. */
export function artifactCard(theme: ThemeRef) {
	return (data: ToolCardData, t: Theme, width: number): ToolView => {
		const name = visibleText(str(data.args.name), false);
		const version = typeof data.details?.version === "number" ? ` v${data.details.version}` : "";
		const title = `${t.bold(t.fg("toolTitle", "artifact"))} ${t.fg("accent", name)}${t.fg("muted", version)}${t.fg("dim", "  /artifacts opens")}`;
		if (data.state === "error") return { title, body: ["", t.fg("error", visibleText(data.output))] };
		const kind = kindOfCard(data);
		const content = str(data.args.content);
		if (kind === "html" || kind === "svg")
			return {
				title,
				body: ["", t.fg("muted", `${kind.toUpperCase()} · ${sizeText(content.length)} · source only here`)],
			};
		if (data.expanded) return { title, body: ["", ...documentLines(content, kind, name, theme, width)] };
		const rows = visibleText(content).replace(/\n$/, "").split("\n");
		const body = ["", ...rows.slice(0, COLLAPSED_LINES).map((l) => t.fg("toolOutput", l))];
		if (rows.length > COLLAPSED_LINES)
			body.push(
				t.fg("muted", `... (${rows.length - COLLAPSED_LINES} more lines, `) +
					t.fg("dim", "ctrl+o") +
					t.fg("muted", " to expand)"),
			);
		return { title, body };
	};
}

class ArtifactPanels {
	readonly #ctx: GuestContext;
	readonly #removals: (() => void)[];
	/** The open session's artifacts, opened at the first /artifacts there. */
	readonly #artifacts: Followed<typeof artifactsContract>;

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
		this.#removals = [
			ctx.registries.toolRenderers.register("artifact", artifactCard(ctx.ui.theme)),
			ctx.commands.register({
				id: "p2.artifacts",
				title: "The documents the agent made in this session",
				category: "Workspace",
				slash: { name: "artifacts" },
				run: () => this.#list(),
			}),
		];
		this.#artifacts = ctx.objects.follow(
			artifactsContract,
			(session) => (session.id ? { session: session.id } : undefined),
			{ lazy: true },
		);
	}

	dispose(): void {
		for (const remove of this.#removals) remove();
		this.#artifacts.close();
	}

	#height(): number {
		return Math.max(8, this.#ctx.ui.tui.terminal.rows - 6);
	}

	async #list(): Promise<void> {
		const { ui } = this.#ctx;
		const ref = this.#artifacts.use();
		if (!ref) return ui.notice("No session is open yet.");
		try {
			await ref.ready;
		} catch (error) {
			return ui.fail(error);
		}
		const artifacts = [...(ref.state?.artifacts ?? [])].reverse();
		if (!artifacts.length) return ui.notice("The agent made no artifacts in this session yet.");
		const items: SelectItem[] = artifacts.map((a) => ({
			value: a.name,
			label: visibleText(a.name, false),
			description: `v${a.version} · ${a.kind} · ${sizeText(a.size)}`,
		}));
		const show = () =>
			ui.showSelector(
				"artifacts",
				new FilterSelector(ui.theme, {
					title: "Artifacts",
					items,
					maxVisible: Math.max(5, this.#height() - 4),
					hint: "↑↓ navigate  enter show  type to filter  escape close",
					onCancel: () => ui.closeSelector(),
					onSelect: (item) => void this.#show(ref, item.value, show),
				}),
			);
		show();
	}

	async #show(ref: ObjectRef<typeof artifactsContract>, name: string, back: () => void): Promise<void> {
		const { ui } = this.#ctx;
		let got: ReadArtifactResult;
		try {
			got = await ref.call("read", { name });
		} catch (error) {
			return ui.fail(error);
		}
		const kind: ArtifactKind = got.kind;
		const source = kind === "html" || kind === "svg";
		const note = [
			`v${got.version}`,
			source ? "Source only: it runs only in a browser" : "",
			got.truncated ? "cut at 512 KiB" : "",
		]
			.filter(Boolean)
			.join(" · ");
		const lines = (width: number) => documentLines(got.text, kind, got.name, ui.theme, width);
		const session = ref.input.session;
		const info = ref.state?.artifacts.find((a) => a.name === got.name);
		const answered = (what: string) => (answer: { ok: boolean; error?: string }) => {
			if (answer.ok) ui.notice(what, "success");
			else if (answer.error !== "declined") ui.notice(`Not done: ${answer.error ?? "refused"}`, "warning");
		};
		// Both go through the launcher, which asks on its own screen; the browser needs its own sign-in.
		const keys = [
			{
				key: "ctrl+s",
				hint: "ctrl+s save",
				run: () =>
					void this.#ctx.launcher
						.request("download", {
							kind: "artifact",
							session,
							name: got.name,
							version: got.version,
							size: info?.version === got.version ? info.size : got.text.length,
						})
						.then(answered(`Saved ${visibleText(got.name, false)} in your download folder`)),
			},
			{
				key: "ctrl+b",
				hint: "ctrl+b browser (its own sign-in)",
				run: () =>
					void this.#ctx.launcher
						.request("openUrl", {
							kind: "origin",
							// The worker's realm has no URLSearchParams: the query is encoded by hand.
							path: `/artifact?session=${encodeURIComponent(session)}&name=${encodeURIComponent(got.name)}&version=${got.version}`,
						})
						.then(answered("Opened in your browser")),
			},
		];
		ui.showSelector(
			"artifact",
			new TextViewer(ui.theme, {
				title: visibleText(got.name, false),
				note,
				source: wholeText(lines),
				numbers: kind !== "markdown",
				keys,
				height: () => this.#height(),
				onClose: back,
				requestRender: () => ui.requestRender(),
			}),
		);
	}
}

export const artifactsPlugin: GuestPlugin = {
	name: "artifacts",
	register(ctx) {
		const panels = new ArtifactPanels(ctx);
		return () => panels.dispose();
	},
};

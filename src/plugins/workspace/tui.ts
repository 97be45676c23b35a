/**
 * The session's directory in the terminal, for those who take part: /files browses it and opens a file in the
 * viewer, /changes lists git's changes (live) and shows a change with the edit card's diff, /grep searches it
 * and opens a match at its line. View-only guests never open the workspace object.
 */
import type { SelectItem } from "@earendil-works/pi-tui";
import type { Followed } from "../../guest/follow.ts";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { OpenSession } from "../../guest/session.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isParticipantRole } from "../../protocol/roles.ts";
import { highlightLines, languageOfPath } from "../../ui/highlight.ts";
import { FilterSelector } from "../../ui/selector.ts";
import { groupDigits, visibleText } from "../../ui/text.ts";
import { TextViewer, type ViewerSource, wholeText } from "../../ui/text-viewer.ts";
import type { Theme } from "../../ui/theme/theme.ts";
import { diffLines } from "../../ui/tools/diff.ts";
import type { ToolCardData, ToolView } from "../../ui/tools/tool-card.ts";
import { type ChangeEntry, type ListEntry, type StatusResult, workspaceContract } from "./contract.ts";
import { piDiff } from "./pi-diff.ts";

/** The workspace is for those who take part in the session: a view guest is told so. */
const PARTICIPANTS = { role: "participant", to: "use the session's files" } as const;

const PAGE = 200;
const KIND_WORDS: Record<ChangeEntry["kind"], string> = {
	staged: "staged",
	unstaged: "not staged",
	untracked: "untracked",
};

/** A size as people read it: bytes below 1 KiB, then KiB and MiB with one decimal. */
export function sizeText(bytes: number): string {
	if (bytes < 1024) return `${groupDigits(bytes)} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const line = (text: string) => visibleText(text, false);
const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
const joinPath = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** The send_file tool's card: the file's name and size, and where to save it. */
export function sentFileCard(data: ToolCardData, t: Theme): ToolView {
	const details = data.details;
	const name =
		typeof details?.name === "string" ? details.name : typeof data.args.path === "string" ? data.args.path : "";
	const size = typeof details?.size === "number" ? t.fg("muted", ` ${sizeText(details.size)}`) : "";
	const title = `${t.bold(t.fg("toolTitle", "send_file"))} ${t.fg("accent", line(name))}${size}`;
	if (data.state === "error") return { title, body: ["", t.fg("error", visibleText(data.output))] };
	if (data.state === "pending") return { title, body: [] };
	return { title, body: ["", t.fg("muted", "Sent to the people in the session: ") + t.fg("dim", "/download saves")] };
}

/** The open session's workspace, for those who take part (a view guest's role has none). */
function participantsSession(session: OpenSession): { session: string } | undefined {
	if (!session.id || (session.role && !isParticipantRole(session.role))) return undefined;
	return { session: session.id };
}

export class WorkspacePanels {
	readonly #ctx: GuestContext;
	readonly #removals: (() => void)[];
	/** The open session's workspace, opened at the first panel asked for there. */
	readonly #workspaceObject: Followed<typeof workspaceContract>;
	/** Redraws /changes when the directory changed while it is open. */
	#onChanges: (() => void) | undefined;

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
		this.#removals = [
			ctx.registries.toolRenderers.register("send_file", sentFileCard),
			ctx.commands.register({
				id: "p2.workspace.files",
				title: "Browse the session's directory and view its files",
				category: "Workspace",
				requires: PARTICIPANTS,
				slash: { name: "files", argumentHint: "[-a] [dir]" },
				run: (args) => this.#files(args),
			}),
			ctx.commands.register({
				id: "p2.workspace.changes",
				title: "Git's changes in the session's directory, with their diffs",
				category: "Workspace",
				requires: PARTICIPANTS,
				slash: { name: "changes" },
				run: () => this.#changes(),
			}),
			ctx.commands.register({
				id: "p2.workspace.grep",
				title: "Search the session's directory",
				category: "Workspace",
				requires: PARTICIPANTS,
				slash: { name: "grep", argumentHint: "<text>" },
				run: (args) => this.#grep(args),
			}),
		];
		this.#workspaceObject = ctx.objects.follow(workspaceContract, participantsSession, { lazy: true });
		let seen: number | undefined;
		let current: ObjectRef<typeof workspaceContract> | undefined;
		this.#workspaceObject.onChange((state, ref) => {
			// Another session's workspace, or none: the panel that waited for changes belonged to the last one.
			if (ref !== current) this.#onChanges = undefined;
			current = ref;
			if (state && seen !== undefined && state.changes !== seen) this.#onChanges?.();
			seen = state?.changes;
		});
	}

	dispose(): void {
		for (const remove of this.#removals) remove();
		this.#workspaceObject.close();
	}

	/** The open session's workspace, opened on first use. */
	async #workspace(): Promise<ObjectRef<typeof workspaceContract> | undefined> {
		const ref = this.#workspaceObject.use();
		if (!ref) {
			this.#ctx.ui.notice("No session is open yet.");
			return undefined;
		}
		await ref.ready;
		return ref;
	}

	async #try<T>(work: () => Promise<T>): Promise<T | undefined> {
		try {
			return await work();
		} catch (error) {
			this.#ctx.ui.fail(error);
			return undefined;
		}
	}

	#height(): number {
		return Math.max(8, this.#ctx.ui.tui.terminal.rows - 6);
	}

	#showViewer(
		id: string,
		title: string,
		note: string,
		source: ViewerSource,
		numbers: boolean,
		back: () => void,
		at?: number,
	) {
		const { ui } = this.#ctx;
		ui.showSelector(
			id,
			new TextViewer(ui.theme, {
				title,
				note,
				source,
				numbers,
				...(at !== undefined ? { at } : {}),
				height: () => this.#height(),
				onClose: back,
				requestRender: () => ui.requestRender(),
			}),
		);
	}

	/** A file's lines, a page at a time from the server, highlighted by its extension. */
	#fileSource(ref: ObjectRef<typeof workspaceContract>, path: string): ViewerSource {
		const pages = new Map<number, string[] | "loading">();
		let last: number | undefined;
		const language = languageOfPath(path);
		const fetch = (page: number) => {
			pages.set(page, "loading");
			ref.call("read", { path, line: page * PAGE + 1, limit: PAGE }).then(
				(result) => {
					const text = result.lines.map((l) => visibleText(l, false));
					const t = this.#ctx.ui.theme.current;
					pages.set(page, highlightLines(text.join("\n"), language, t) ?? text.map((l) => t.fg("toolOutput", l)));
					if (!result.more) last = page * PAGE + result.lines.length;
					this.#ctx.ui.requestRender();
				},
				() => pages.delete(page),
			);
		};
		return {
			line: (n) => {
				if (last !== undefined && n > last) return null;
				const page = Math.floor((n - 1) / PAGE);
				const got = pages.get(page);
				if (got === undefined) fetch(page);
				if (got === undefined || got === "loading") return undefined;
				return got[(n - 1) % PAGE] ?? null;
			},
			find: async (text, from) => (await ref.call("read", { path, line: from, limit: 1, find: text })).line,
		};
	}

	async #openFile(path: string, back: () => void, at?: number): Promise<void> {
		const ref = await this.#workspace();
		if (!ref) return;
		const first = await this.#try(() => ref.call("read", { path, line: 1, limit: 1 }));
		if (!first) return;
		const shown = line(first.path);
		if (first.binary) {
			this.#ctx.ui.notice(`${shown} is a binary file (${sizeText(first.size)}): not shown`, "warning");
			return back();
		}
		this.#showViewer("workspace-file", shown, sizeText(first.size), this.#fileSource(ref, path), true, back, at);
	}

	async #files(args: string): Promise<void> {
		const words = args.trim().split(/\s+/).filter(Boolean);
		const hidden = words.includes("-a");
		const dir = words.filter((w) => w !== "-a").join(" ");
		const ref = await this.#workspace();
		if (!ref) return;
		await this.#browse(ref, dir, hidden);
	}

	async #browse(ref: ObjectRef<typeof workspaceContract>, dir: string, hidden: boolean): Promise<void> {
		const { ui } = this.#ctx;
		const listed = await this.#try(() => ref.call("list", { path: dir, ...(hidden ? { hidden } : {}) }));
		if (!listed) return;
		const here = listed.path;
		const entries = new Map<string, ListEntry>();
		const items: SelectItem[] = [];
		if (here) items.push({ value: "..", label: "../", description: "up" });
		for (const e of listed.entries) {
			entries.set(e.name, e);
			const name = line(e.name);
			const marks = [e.dir ? "" : sizeText(e.size), e.link ? "link" : "", e.ignored ? "ignored" : ""].filter(Boolean);
			items.push({ value: e.name, label: e.dir ? `${name}/` : name, description: marks.join(" · ") });
		}
		const title = `Files in ${here ? line(here) : "."}${listed.truncated ? ` (first ${listed.entries.length})` : ""}`;
		const reopen = () => void this.#browse(ref, here, hidden);
		ui.showSelector(
			"workspace-files",
			new FilterSelector(ui.theme, {
				title,
				items,
				maxVisible: Math.max(5, this.#height() - 4),
				layout: { minPrimaryColumnWidth: 20, maxPrimaryColumnWidth: 60 },
				hint: "↑↓ navigate  enter open  type to filter  escape close",
				onCancel: () => ui.closeSelector(),
				onSelect: (item) => {
					if (item.value === "..") return void this.#browse(ref, parentOf(here), hidden);
					const entry = entries.get(item.value);
					if (!entry) return;
					const path = joinPath(here, entry.name);
					if (entry.dir) return void this.#browse(ref, path, hidden);
					void this.#openFile(path, reopen);
				},
			}),
		);
	}

	async #changes(): Promise<void> {
		const ref = await this.#workspace();
		if (!ref) return;
		const { ui } = this.#ctx;
		const show = async () => {
			const status = await this.#try(() => ref.call("status", null));
			if (!status) return;
			if (!status.repo) return ui.notice("The session's directory is not a git repository.");
			// A live list: a change in the directory while it is open shows the new status.
			this.#onChanges = () => {
				if (ui.selector?.id === "workspace-changes") void show();
			};
			ui.showSelector("workspace-changes", this.#changeList(ref, status, show));
		};
		await show();
	}

	#changeList(
		ref: ObjectRef<typeof workspaceContract>,
		status: StatusResult,
		back: () => Promise<void>,
	): FilterSelector {
		const { ui } = this.#ctx;
		const items: SelectItem[] = status.changes.map((c, i) => ({
			value: String(i),
			label: `${c.status} ${line(c.path)}${c.from ? ` ← ${line(c.from)}` : ""}`,
			description: KIND_WORDS[c.kind],
		}));
		const branch = status.branch ? ` on ${line(status.branch)}` : "";
		return new FilterSelector(ui.theme, {
			title: items.length
				? `Changes${branch}${status.truncated ? " (first ones)" : ""}`
				: `No changes${branch}: the working tree is clean`,
			items,
			maxVisible: Math.max(5, this.#height() - 4),
			layout: { minPrimaryColumnWidth: 20, maxPrimaryColumnWidth: 70 },
			hint: "↑↓ navigate  enter diff  type to filter  escape close",
			onCancel: () => {
				this.#onChanges = undefined;
				ui.closeSelector();
			},
			onSelect: (item) => {
				const change = status.changes[Number(item.value)];
				if (!change) return;
				void this.#showDiff(ref, change, () => void back());
			},
		});
	}

	async #showDiff(ref: ObjectRef<typeof workspaceContract>, change: ChangeEntry, back: () => void): Promise<void> {
		const got = await this.#try(() => ref.call("diff", { path: change.path, kind: change.kind }));
		if (!got) return;
		const title = `${change.status} ${line(change.path)}`;
		const note = [KIND_WORDS[change.kind], got.truncated ? "cut short" : ""].filter(Boolean).join(" · ");
		if (got.binary || !got.diff) {
			this.#ctx.ui.notice(`${title}: ${got.binary ? "a binary file" : "no textual difference"}`);
			return back();
		}
		const numbered = visibleText(piDiff(got.diff));
		const rows = numbered.split("\n");
		const source = wholeText(
			() => diffLines(numbered, this.#ctx.ui.theme.current),
			() => rows,
		);
		this.#showViewer("workspace-diff", title, note, source, false, back);
	}

	async #grep(args: string): Promise<void> {
		const text = args.trim();
		const { ui } = this.#ctx;
		if (!text) return ui.notice("Usage: /grep <text>");
		const ref = await this.#workspace();
		if (!ref) return;
		ui.notice(`Searching for "${line(text).slice(0, 80)}"…`);
		const found = await this.#try(() => ref.call("grep", { text: text.slice(0, 200) }));
		if (!found) return;
		if (!found.matches.length) return ui.notice(`No matches for "${line(text).slice(0, 80)}"`);
		const show = () =>
			ui.showSelector(
				"workspace-grep",
				new FilterSelector(ui.theme, {
					title: `${found.matches.length}${found.truncated ? "+" : ""} matches for "${line(text).slice(0, 60)}"`,
					items: found.matches.map((m, i) => ({
						value: String(i),
						label: `${line(m.path)}:${m.line}`,
						description: line(m.text).trim().slice(0, 200),
					})),
					filterText: (item) => `${item.label} ${item.description ?? ""}`,
					maxVisible: Math.max(5, this.#height() - 4),
					layout: { minPrimaryColumnWidth: 20, maxPrimaryColumnWidth: 50 },
					hint: "↑↓ navigate  enter open at the line  type to filter  escape close",
					onCancel: () => ui.closeSelector(),
					onSelect: (item) => {
						const match = found.matches[Number(item.value)];
						if (match) void this.#openFile(match.path, show, match.line);
					},
				}),
			);
		show();
	}
}

export const workspacePlugin: GuestPlugin = {
	name: "workspace",
	register(ctx) {
		const panels = new WorkspacePanels(ctx);
		return () => panels.dispose();
	},
};

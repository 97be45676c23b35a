import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

/** A listing shows at most this many entries (folders first); more says "truncated". */
export const MAX_ENTRIES = 5000;
/** One page of a file in the viewer: at most this many lines, each cut at MAX_LINE_CHARS. */
export const MAX_PAGE_LINES = 500;
export const MAX_LINE_CHARS = 2000;
/** A search stops after this many matches. */
export const MAX_MATCHES = 200;
/** A diff is cut at this many characters. */
export const MAX_DIFF_CHARS = 256 * 1024;
/** Git's status lists at most this many changes. */
export const MAX_CHANGES = 2000;

/** A path relative to the session's directory, as typed or listed (`""` or `.` is the directory itself). */
const RelPath = "string <= 4096";

export const ListArgs = lazy(() => type({ path: RelPath, "hidden?": "boolean" }));
export const ListEntry = lazy(() =>
	type({
		name: "string",
		/** A folder (a symbolic link is never one: it is not followed). */
		dir: "boolean",
		/** A symbolic link (shown, not followed when it leaves the directory). */
		link: "boolean",
		size: "number",
		/** Git ignores it (.gitignore). */
		ignored: "boolean",
	}),
);
export type ListEntry = typeof ListEntry.infer;
export const ListResult = lazy(() =>
	type({
		/** The listed folder, relative to the session's directory (`""` for the directory itself). */
		path: "string",
		entries: ListEntry.array().atMostLength(MAX_ENTRIES),
		truncated: "boolean",
	}),
);
export type ListResult = typeof ListResult.infer;

export const ReadArgs = lazy(() =>
	type({
		path: RelPath,
		/** The first line of the page (1-based). */
		line: "number.integer >= 1",
		limit: `1 <= number.integer <= ${MAX_PAGE_LINES}`,
		/** The page starts at the first line at or after `line` that contains this text (case-insensitive). */
		"find?": "1 <= string <= 200",
	}),
);
export const ReadResult = lazy(() =>
	type({
		path: "string",
		size: "number",
		/** A binary file is named, never shown: `lines` is empty. */
		binary: "boolean",
		/** The page's first line number; with `find`, the matching line (or null when none was found). */
		line: "number.integer | null",
		lines: type("string").array().atMostLength(MAX_PAGE_LINES),
		/** The file goes on after this page. */
		more: "boolean",
	}),
);
export type ReadResult = typeof ReadResult.infer;

export const ChangeEntry = lazy(() =>
	type({
		/** Relative to the session's directory. */
		path: "string",
		/** A renamed file's old path. */
		"from?": "string",
		/** `staged`: in the index; `unstaged`: in the working tree only; `untracked`. */
		kind: "'staged' | 'unstaged' | 'untracked'",
		/** Git's letter: M, A, D, R, C, U, T, or ? for untracked. */
		status: "string <= 1",
	}),
);
export type ChangeEntry = typeof ChangeEntry.infer;
export const StatusResult = lazy(() =>
	type({
		/** False outside a git repository: nothing else is said. */
		repo: "boolean",
		branch: "string | null",
		changes: ChangeEntry.array().atMostLength(MAX_CHANGES * 2),
		truncated: "boolean",
	}),
);
export type StatusResult = typeof StatusResult.infer;

export const DiffArgs = lazy(() => type({ path: RelPath, kind: "'staged' | 'unstaged' | 'untracked'" }));
export const DiffResult = lazy(() =>
	type({
		/** Git's unified diff (the hunks); empty when there is none. */
		diff: `string <= ${MAX_DIFF_CHARS}`,
		binary: "boolean",
		truncated: "boolean",
	}),
);
export type DiffResult = typeof DiffResult.infer;

export const GrepArgs = lazy(() => type({ text: "1 <= string <= 200" }));
export const GrepMatch = lazy(() =>
	type({ path: "string", line: "number.integer >= 1", text: `string <= ${MAX_LINE_CHARS}` }),
);
export type GrepMatch = typeof GrepMatch.infer;
export const GrepResult = lazy(() =>
	type({
		matches: GrepMatch.array().atMostLength(MAX_MATCHES),
		/** More matches than shown, or the search ran out of time. */
		truncated: "boolean",
		/** What searched: ripgrep, git grep, or p2's own walk. */
		engine: "'rg' | 'git' | 'walk'",
	}),
);
export type GrepResult = typeof GrepResult.infer;

export const WorkspaceState = lazy(() =>
	type({
		/** Advances when something in the session's directory changed (the server watches it). */
		changes: "number.integer >= 0",
	}),
);
export type WorkspaceState = typeof WorkspaceState.infer;

const methods = ["list", "read", "status", "diff", "grep"] as const;
const variant = { state: WorkspaceState, methods };

/**
 * The session's directory for those who take part (owners and full guests): its files, git's changes and a
 * search. Everything is confined to the directory on the server; view-only guests never hold it.
 */
export const workspaceContract = defineContract({
	name: "workspace",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: {
		list: method(ListArgs, ListResult),
		read: method(ReadArgs, ReadResult),
		status: method(type("null | undefined"), StatusResult),
		diff: method(DiffArgs, DiffResult),
		grep: method(GrepArgs, GrepResult),
	},
	variants: { deviceOwner: variant, owner: variant, full: variant, view: null },
});

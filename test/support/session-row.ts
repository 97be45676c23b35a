import type { SessionRow } from "../../src/plugins/sessions/contract.ts";

/** A sessions-catalog row as the server sends it, with what a test cares about set. */
export function sessionRow(over: Partial<SessionRow> & Pick<SessionRow, "id">): SessionRow {
	return {
		title: "",
		cwd: "/",
		branch: null,
		env: "local",
		model: null,
		thinkingLevel: null,
		busy: false,
		pinned: false,
		archived: false,
		createdAt: 0,
		updatedAt: 0,
		parent: null,
		...over,
	};
}

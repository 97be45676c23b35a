/**
 * A session whose directory was deleted or moved on the server. pi asks before it resumes one (continue in
 * the current directory, fork there, or cancel); p2 says so where the person looks: the conversation's state
 * names the directory, so each client warns when it opens the conversation, and what would run there (a
 * message, a `!` command) is refused with the same words while the text stays in the editor.
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { isDirectory, isOwner, type LiveState, type Principal, type ServerContext } from "../../server/plugin.ts";
import type { ChatState } from "./contract.ts";

/** The session's directory when it is on this machine and no longer there; null otherwise. */
export function goneDirectory(ctx: ServerContext, session: string): string | null {
	const record = ctx.catalog.get(session);
	if (record?.env !== "local") return null;
	return isDirectory(record.cwd) ? null : record.cwd;
}

/** The state says whether the directory is gone, as found just now. */
export function showGoneDirectory(live: LiveState<ChatState>, gone: string | null): void {
	const shown = Object.hasOwn(live.state, "directoryGone") ? (live.state.directoryGone ?? null) : null;
	if (shown === gone) return;
	live.update([
		gone === null ? { op: "del", path: ["directoryGone"] } : { op: "set", path: ["directoryGone"], value: gone },
	]);
}

/** What the person reads when they send or run a command there. */
export function goneDirectoryText(cwd: string, principal: Principal): string {
	return isOwner(principal)
		? `This session's directory no longer exists: ${cwd}. Use /new <path> to start a session in another directory.`
		: `This session's directory no longer exists: ${cwd}. Only the owner can start a session in another directory.`;
}

/** Refuses a message or a `!` command when the session's directory is gone (and updates the state either way). */
export function refuseInGoneDirectory(
	ctx: ServerContext,
	session: string,
	live: LiveState<ChatState>,
	principal: Principal,
): void {
	const gone = goneDirectory(ctx, session);
	showGoneDirectory(live, gone);
	if (gone !== null) throw new ProtocolError("unavailable", goneDirectoryText(gone, principal));
}

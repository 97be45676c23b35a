/**
 * pi asks what to do when a session's directory no longer exists ("Session cwd does not exist: …", then
 * continue elsewhere, fork, or cancel). p2's server says so in the conversation's state; the open
 * conversation then gets one warning line naming the directory and what the person can do instead.
 */

import { isOwnerRole, type Role } from "../../../protocol/roles.ts";
import type { ChatState } from "../contract.ts";

/** The directory the server says is gone, read as the server's own key. */
export function goneDirectoryOf(state: ChatState | undefined): string | null {
	return state && Object.hasOwn(state, "directoryGone") ? (state.directoryGone ?? null) : null;
}

/** The warning for a conversation whose directory is gone; `startCwd` is where p2 started on this device. */
export function goneDirectoryWarning(cwd: string, role: Role | undefined, startCwd: string | undefined): string {
	const gone = `Warning: This session's directory no longer exists: ${cwd}.`;
	if (!isOwnerRole(role)) {
		return `${gone} Messages and commands cannot run there; only the owner can start a session in another directory.`;
	}
	return startCwd && startCwd !== cwd
		? `${gone} Type /new to start a session in ${startCwd}, or /new <path> for another directory.`
		: `${gone} Type /new <path> to start a session in another directory.`;
}

/** Says it once per opening of a conversation, and again if the directory comes back and goes again. */
export class GoneDirectoryNotice {
	#said: string | null = null;

	/** `gone`: what the conversation's state says now. Returns the line to show, if one is due. */
	next(gone: string | null, role: Role | undefined, startCwd: string | undefined): string | undefined {
		if (gone === this.#said) return undefined;
		this.#said = gone;
		return gone === null ? undefined : goneDirectoryWarning(gone, role, startCwd);
	}
}

/**
 * What one guest's handle of a conversation shows: the conversation's state, less what their role may not see.
 * A view-only guest never gets the loaded context files (paths on the server, pi's [Context] listing), in the
 * snapshot or in a patch; participants do. The role may change while the handle stays open (a guest demoted
 * or promoted), and the copy follows it.
 */
import type { PatchOp } from "../../protocol/patch.ts";
import type { Role } from "../../protocol/roles.ts";
import { LiveState } from "../../server/plugin.ts";
import type { ChatState } from "./contract.ts";

/** Server paths: for those who may work in the session only. */
const PARTICIPANTS_ONLY = "contextFiles";

function forRole(state: ChatState, role: Role): ChatState {
	if (role !== "view" || !Object.hasOwn(state, PARTICIPANTS_ONLY)) return state;
	const { contextFiles: _hidden, ...shown } = state;
	return shown;
}

/** Whether an op may reach a viewer: nothing at or under the hidden member, and no whole-state replacement. */
const viewerMay = (op: PatchOp) => op.path.length > 0 && op.path[0] !== PARTICIPANTS_ONLY;

export class GuestChatState {
	readonly live: LiveState<ChatState>;
	readonly #source: LiveState<ChatState>;
	readonly #unsubscribe: () => void;
	#role: Role;

	constructor(source: LiveState<ChatState>, role: Role) {
		this.#source = source;
		this.#role = role;
		// Streamed text was already held for a frame by the source: it goes on at once.
		const { state, unsubscribe } = source.subscribe((opsJson) => this.#follow(opsJson));
		this.live = new LiveState(forRole(state, role), { schedule: (flush) => flush() });
		this.#unsubscribe = unsubscribe;
	}

	#follow(opsJson: string): void {
		const ops = JSON.parse(opsJson) as PatchOp[];
		if (this.#role !== "view") return this.live.update(ops);
		if (ops.every(viewerMay)) return this.live.update(ops);
		// A whole-state replacement (none is sent today) shows the state as it is now, as the role sees it.
		if (ops.some((op) => op.path.length === 0)) {
			return this.live.update([{ op: "set", path: [], value: forRole(this.#source.state, "view") }]);
		}
		this.live.update(ops.filter(viewerMay));
	}

	/** The guest's role changed: what the new one may see is shown, what it may not is taken away. */
	setRole(role: Role): void {
		if (role === this.#role) return;
		this.#role = role;
		const files = this.#source.state.contextFiles;
		if (role === "view") {
			if (Object.hasOwn(this.live.state, PARTICIPANTS_ONLY))
				this.live.update([{ op: "del", path: [PARTICIPANTS_ONLY] }]);
		} else if (files !== undefined) this.live.update([{ op: "set", path: [PARTICIPANTS_ONLY], value: files }]);
	}

	release(): void {
		this.#unsubscribe();
	}
}

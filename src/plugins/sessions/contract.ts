import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { ENV_NAME } from "../../protocol/env-name.ts";
import { lazy } from "../../protocol/lazy.ts";

export { SessionId };

export const SessionRow = lazy(() =>
	type({
		id: SessionId,
		title: "string",
		cwd: "string",
		/** The git branch of `cwd` on the server (`detached` for a detached HEAD), null outside a repository. */
		branch: "string | null",
		/** Where the session's tools run: `local` is the server's own machine. */
		env: "string",
		/** `provider/id` of the session's model, or null for the server default. */
		model: "string | null",
		thinkingLevel: "string | null",
		busy: "boolean",
		pinned: "boolean",
		archived: "boolean",
		createdAt: "number",
		updatedAt: "number",
		parent: "string | null",
	}),
);
export type SessionRow = typeof SessionRow.infer;

export const SessionsState = lazy(() => type({ sessions: SessionRow.array() }));
export type SessionsState = typeof SessionsState.infer;

export const MAX_TITLE = 200;
const Title = lazy(() => type(`0 < string <= ${MAX_TITLE}`));

/** An environment's name as the footer writes it before the colon (`gpu:/data`); `local` is this device. */
export const EnvName = lazy(() => type(ENV_NAME));
export const CreateArgs = lazy(() =>
	type({ cwd: "0 < string <= 4096", "env?": EnvName, "title?": Title, "parent?": SessionId }),
);
/** `cwd`: absolute, or `~`/`~/…` (the target machine's home); resolved there to its canonical path. */
export const RelocateArgs = lazy(() => type({ id: SessionId, env: EnvName, cwd: "0 < string <= 4096" }));
export const RenameArgs = lazy(() => type({ id: SessionId, title: Title }));
export const PinArgs = lazy(() => type({ id: SessionId, pinned: "boolean" }));
export const IdArgs = lazy(() => type({ id: SessionId }));

const ownerMethods = ["create", "rename", "pin", "archive", "restore", "relocate"] as const;

/** The catalog of sessions. Owners see and change all of them; a guest sees only the session they joined. */
export const sessionsContract = defineContract({
	name: "sessions",
	version: 1,
	input: type({}),
	methods: {
		create: method(CreateArgs, SessionRow),
		rename: method(RenameArgs, SessionRow),
		pin: method(PinArgs, SessionRow),
		archive: method(IdArgs, SessionRow),
		restore: method(IdArgs, SessionRow),
		/** Moves the session to another `env:path`; refused while it works. The history stays, files are not copied. */
		relocate: method(RelocateArgs, SessionRow),
	},
	variants: {
		deviceOwner: { state: SessionsState, methods: ownerMethods },
		owner: { state: SessionsState, methods: ownerMethods },
		full: { state: SessionsState, methods: [] },
		view: { state: SessionsState, methods: [] },
	},
});

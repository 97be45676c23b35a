import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

/** An artifact's name: what the agent calls it (`report.md`), shown and used in its route. */
export const ARTIFACT_NAME = /^[\w][\w .()-]{0,99}$/;
/** One version's content at most (the tool refuses more). */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;
/** What the worker reads inline at most; more is cut and says so. */
export const MAX_INLINE_CHARS = 512 * 1024;

export const ArtifactKind = lazy(() => type("'markdown' | 'text' | 'html' | 'svg' | 'code'"));
export type ArtifactKind = typeof ArtifactKind.infer;

export const ArtifactInfo = lazy(() =>
	type({
		name: "string <= 100",
		/** The latest version (1 for the first). */
		version: "number.integer >= 1",
		kind: ArtifactKind,
		size: "number",
		at: "number",
	}),
);
export type ArtifactInfo = typeof ArtifactInfo.infer;

export const ArtifactsState = lazy(() => type({ artifacts: ArtifactInfo.array() }));
export type ArtifactsState = typeof ArtifactsState.infer;

export const ReadArtifactArgs = lazy(() => type({ name: "string <= 100", "version?": "number.integer >= 1" }));
export const ReadArtifactResult = lazy(() =>
	type({
		name: "string",
		version: "number.integer >= 1",
		kind: ArtifactKind,
		text: `string <= ${MAX_INLINE_CHARS}`,
		truncated: "boolean",
	}),
);
export type ReadArtifactResult = typeof ReadArtifactResult.infer;

const variant = { state: ArtifactsState, methods: ["read"] as const };

/**
 * The documents the agent made in a session (the `artifact` tool), each versioned, for everyone who may see the
 * session. The worker has no cookie: it reads an artifact inline through `read`, bounded in size.
 */
export const artifactsContract = defineContract({
	name: "artifacts",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: { read: method(ReadArtifactArgs, ReadArtifactResult) },
	variants: { deviceOwner: variant, owner: variant, full: variant, view: variant },
});

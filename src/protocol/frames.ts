import { type } from "./ark.ts";
import { arktypeChecks } from "./arktype-checks.ts";
import { MAX_SERVER_FRAME_CHARS } from "./channel-kinds.ts";
import { REFUSAL_CODES } from "./codes.ts";
import { lazy } from "./lazy.ts";
import { PatchOp } from "./patch.ts";
import { Role } from "./roles.ts";
import { CLIENT_FRAME_KEY, type SchemaChecks, SERVER_FRAME_KEY, type Verdict } from "./schema-checks.ts";

/** The largest frame either end accepts (a tool result or a page of entries fits well inside). */
export const MAX_FRAME_BYTES = 1024 * 1024;
/**
 * How deeply a client's frame may nest objects and arrays: far past any real frame, and a bound for everything
 * on the server that walks a value it was sent (checks, their words, storage) and could run out of stack.
 */
export const MAX_FRAME_DEPTH = 64;
export const PROTOCOL_VERSION = 1;

const Handle = lazy(() => type("1 <= number.integer <= 2147483647"));
const RequestId = lazy(() => type("0 <= number.integer <= 9007199254740991"));
const ObjectName = lazy(() => type("/^[a-z][a-z0-9.-]{0,63}$/"));
const MethodName = lazy(() => type("/^[a-zA-Z][a-zA-Z0-9]{0,63}$/"));
const Code = lazy(() => type.enumerated(...(Object.keys(REFUSAL_CODES) as (keyof typeof REFUSAL_CODES)[])));
const Message = lazy(() => type("string <= 2000"));

// Client → server.
export const OpenFrame = lazy(() =>
	type({
		t: "'open'",
		h: Handle,
		object: ObjectName,
		version: "number.integer",
		input: "unknown",
	}),
);
export const CallFrame = lazy(() =>
	type({ t: "'call'", h: Handle, id: RequestId, method: MethodName, args: "unknown" }),
);
export const CloseFrame = lazy(() => type({ t: "'close'", h: Handle }));
export const ClientFrame = OpenFrame.or(CallFrame).or(CloseFrame);
export type ClientFrame = typeof ClientFrame.infer;

// Server → client.
export const HelloFrame = lazy(() =>
	type({ t: "'hello'", protocol: "number.integer", role: Role, name: "string <= 200" }),
);
export const SnapshotFrame = lazy(() =>
	type({
		t: "'snapshot'",
		h: Handle,
		version: "number.integer",
		role: Role,
		state: "unknown",
	}),
);
export const PatchFrame = lazy(() => type({ t: "'patch'", h: Handle, ops: PatchOp.array().atLeastLength(1) }));
export const ResultFrame = lazy(() =>
	type({ t: "'result'", h: Handle, id: RequestId, ok: "true", value: "unknown" }).or({
		t: "'result'",
		h: Handle,
		id: RequestId,
		ok: "false",
		code: Code,
		message: Message,
	}),
);
/** A frame that could not be taken. `h`/`id` name what it was about when the server could tell. */
export const RefusedFrame = lazy(() =>
	type({ t: "'refused'", "h?": Handle, "id?": RequestId, code: Code, message: Message }),
);
/** The server ended an open object (e.g. access changed); the handle is free again. */
export const ClosedFrame = lazy(() => type({ t: "'closed'", h: Handle, code: Code, message: Message }));
export const ServerFrame = HelloFrame.or(SnapshotFrame).or(PatchFrame).or(ResultFrame).or(RefusedFrame).or(ClosedFrame);
export type ServerFrame = typeof ServerFrame.infer;
export type SnapshotFrame = typeof SnapshotFrame.infer;
export type PatchFrame = typeof PatchFrame.infer;
export type ResultFrame = typeof ResultFrame.infer;

export type ParseResult<T> = { ok: true; frame: T } | { ok: false; code: "bad_frame" | "too_large"; message: string };

/** Whether the JSON text opens more than `max` objects and arrays inside each other (outside its strings). */
function nestsDeeperThan(text: string, max: number): boolean {
	let depth = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 0x5c) i++;
			else if (c === 0x22) inString = false;
		} else if (c === 0x22) inString = true;
		else if (c === 0x5b || c === 0x7b) {
			if (++depth > max) return true;
		} else if (c === 0x5d || c === 0x7d) depth--;
	}
	return false;
}

function parseWith<T>(
	text: string,
	maxBytes: number,
	check: (data: unknown) => Verdict,
	maxDepth = Number.POSITIVE_INFINITY,
): ParseResult<T> {
	if (text.length > maxBytes) return { ok: false, code: "too_large", message: `frame over ${maxBytes} bytes` };
	if (maxDepth !== Number.POSITIVE_INFINITY && nestsDeeperThan(text, maxDepth)) {
		return { ok: false, code: "bad_frame", message: `frame nests deeper than ${maxDepth} levels` };
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch {
		return { ok: false, code: "bad_frame", message: "frame is not valid JSON" };
	}
	const verdict = check(data);
	if (!verdict.ok) return { ok: false, code: "bad_frame", message: verdict.why.slice(0, 500) };
	return { ok: true, frame: verdict.value as T };
}

/** `checks`: the server passes its precompiled validators first; elsewhere the arktype schema checks. */
export function parseClientFrame(
	text: string,
	maxBytes = MAX_FRAME_BYTES,
	checks: SchemaChecks = arktypeChecks,
): ParseResult<ClientFrame> {
	return parseWith<ClientFrame>(
		text,
		maxBytes,
		(data) => checks.check(CLIENT_FRAME_KEY, ClientFrame, data),
		MAX_FRAME_DEPTH,
	);
}

/** `checks`: the guest passes its precompiled validators; elsewhere the arktype schema checks. */
export function parseServerFrame(
	text: string,
	maxBytes = MAX_SERVER_FRAME_CHARS,
	checks: SchemaChecks = arktypeChecks,
): ParseResult<ServerFrame> {
	return parseWith<ServerFrame>(text, maxBytes, (data) => checks.check(SERVER_FRAME_KEY, ServerFrame, data));
}

/**
 * The launcher's check of everything the worker posts, written by hand: it runs on every message (output
 * frames while an answer streams), and the launcher must start without loading a schema library. It accepts
 * exactly what `WorkerMessage` in `channel.ts` accepts (a test compares the two on hostile input), reads only
 * own keys, and returns a fresh message holding only the declared fields.
 */
import type { WorkerMessage } from "./channel.ts";
import {
	MAX_COPY_CHARS,
	MAX_EXIT_TEXT_CHARS,
	MAX_FRAME_CHARS,
	MAX_IMAGE_BASE64_CHARS,
	MAX_IMAGE_PLACEMENTS,
	MAX_LOG_CHARS,
	MAX_OUTPUT_CHARS,
	MAX_SNAPSHOT_CHARS,
} from "./channel-kinds.ts";

export type WorkerMessageCheck =
	| { readonly ok: true; readonly message: WorkerMessage }
	| { readonly ok: false; readonly error: string };

type Fields = Record<string, unknown>;

class Refused extends Error {}

function record(value: unknown, where: string): Fields {
	if (typeof value !== "object" || value === null || Array.isArray(value))
		throw new Refused(`${where} must be an object`);
	return value as Fields;
}

function field(from: Fields, key: string): unknown {
	return Object.hasOwn(from, key) ? from[key] : undefined;
}

function text(from: Fields, key: string, max: number): string {
	const value = field(from, key);
	if (typeof value !== "string") throw new Refused(`${key} must be a string`);
	if (value.length > max) throw new Refused(`${key} must be at most ${max} characters`);
	return value;
}

/** An optional field is absent, or of its type: present but undefined is refused. */
function optionalText(from: Fields, key: string, max: number): string | undefined {
	return Object.hasOwn(from, key) ? text(from, key, max) : undefined;
}

function flag(from: Fields, key: string): boolean {
	const value = field(from, key);
	if (typeof value !== "boolean") throw new Refused(`${key} must be a boolean`);
	return value;
}

function integer(from: Fields, key: string, min = Number.NEGATIVE_INFINITY, max = Number.POSITIVE_INFINITY): number {
	const value = field(from, key);
	if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
		throw new Refused(
			Number.isFinite(min) ? `${key} must be an integer from ${min} to ${max}` : `${key} must be an integer`,
		);
	}
	return value;
}

function finite(from: Fields, key: string): number {
	const value = field(from, key);
	if (typeof value !== "number" || Number.isNaN(value)) throw new Refused(`${key} must be a number`);
	return value;
}

function oneOf<T extends string>(from: Fields, key: string, values: readonly T[]): T {
	const value = field(from, key);
	if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
		throw new Refused(`${key} must be one of ${values.join(", ")}`);
	}
	return value as T;
}

const PROGRAM_STATUS = ["idle", "working", "blocked", "done", "error", "clear"] as const;

function statusAction(value: unknown): Extract<WorkerMessage, { kind: "status" }>["action"] {
	const action = record(value, "action");
	switch (field(action, "kind")) {
		case "title":
			return { kind: "title", text: text(action, "text", 4096) };
		case "progress":
			return { kind: "progress", active: flag(action, "active") };
		case "programStatus":
			return { kind: "programStatus", status: oneOf(action, "status", PROGRAM_STATUS) };
		default:
			throw new Refused("action.kind is not a status action");
	}
}

function request(m: Fields): WorkerMessage {
	const id = text(m, "id", 64);
	const payload = record(field(m, "payload"), "payload");
	switch (field(m, "action")) {
		case "savePrefs": {
			// Any object: the launcher's own check of the patch says what is wrong with it, before any screen.
			const patch = field(payload, "patch");
			if (typeof patch !== "object" || patch === null) throw new Refused("patch must be an object");
			return { kind: "request", id, action: "savePrefs", payload: { patch: patch as Record<string, unknown> } };
		}
		case "copy": {
			const label = optionalText(payload, "label", 200);
			return {
				kind: "request",
				id,
				action: "copy",
				payload: { text: text(payload, "text", MAX_COPY_CHARS), ...(label === undefined ? {} : { label }) },
			};
		}
		case "openUrl":
			if (field(payload, "kind") === "origin")
				return {
					kind: "request",
					id,
					action: "openUrl",
					payload: { kind: "origin", path: text(payload, "path", 2048) },
				};
			return { kind: "request", id, action: "openUrl", payload: { url: text(payload, "url", 2048) } };
		case "attach":
			return { kind: "request", id, action: "attach", payload: { path: text(payload, "path", 4096) } };
		case "download":
			if (field(payload, "kind") === "artifact") {
				const version = finite(payload, "version");
				if (!Number.isInteger(version) || version < 1) throw new Refused("version must be a whole number from 1");
				return {
					kind: "request",
					id,
					action: "download",
					payload: {
						kind: "artifact",
						session: text(payload, "session", 64),
						name: text(payload, "name", 255),
						version,
						size: finite(payload, "size"),
					},
				};
			}
			return {
				kind: "request",
				id,
				action: "download",
				payload: {
					session: text(payload, "session", 64),
					id: text(payload, "id", 64),
					name: text(payload, "name", 255),
					size: finite(payload, "size"),
				},
			};
		case "signOut":
			return { kind: "request", id, action: "signOut", payload: { all: flag(payload, "all") } };
		case "forward":
			if (Object.hasOwn(payload, "close"))
				return { kind: "request", id, action: "forward", payload: { close: integer(payload, "close", 1, 65535) } };
			return { kind: "request", id, action: "forward", payload: { port: integer(payload, "port", 1, 65535) } };
		case "copy.selection":
			return {
				kind: "request",
				id,
				action: "copy.selection",
				payload: { text: text(payload, "text", MAX_COPY_CHARS) },
			};
		default:
			throw new Refused("action is not a launcher action");
	}
}

function placements(value: unknown): Extract<WorkerMessage, { kind: "imagePlacements" }>["placements"] {
	if (!Array.isArray(value)) throw new Refused("placements must be an array");
	if (value.length > MAX_IMAGE_PLACEMENTS) throw new Refused(`placements must be at most ${MAX_IMAGE_PLACEMENTS}`);
	return value.map((item) => {
		const p = record(item, "a placement");
		return {
			id: text(p, "id", 64),
			row: integer(p, "row", 0, 10000),
			col: integer(p, "col", 0, 10000),
			columns: integer(p, "columns", 1, 10000),
			rows: integer(p, "rows", 1, 10000),
		};
	});
}

function message(data: unknown): WorkerMessage {
	const m = record(data, "a worker message");
	switch (field(m, "kind")) {
		case "ready":
			return { kind: "ready" };
		case "reload":
			return { kind: "reload" };
		case "output":
			return { kind: "output", data: text(m, "data", MAX_OUTPUT_CHARS) };
		case "frame":
			return { kind: "frame", text: text(m, "text", MAX_FRAME_CHARS) };
		case "status":
			return { kind: "status", action: statusAction(field(m, "action")) };
		case "log":
			return { kind: "log", level: oneOf(m, "level", ["info", "warn", "error"]), text: text(m, "text", MAX_LOG_CHARS) };
		case "snapshot":
			return { kind: "snapshot", data: text(m, "data", MAX_SNAPSHOT_CHARS) };
		case "exitOutput":
			return { kind: "exitOutput", text: text(m, "text", MAX_EXIT_TEXT_CHARS), resumable: flag(m, "resumable") };
		case "exit":
			return { kind: "exit", code: integer(m, "code", 0, 255) };
		case "pong": {
			const heap = Object.hasOwn(m, "heapBytes") ? finite(m, "heapBytes") : undefined;
			return { kind: "pong", n: integer(m, "n"), ...(heap === undefined ? {} : { heapBytes: heap }) };
		}
		case "error":
			return { kind: "error", message: text(m, "message", MAX_LOG_CHARS) };
		case "navigation":
			return { kind: "navigation", session: text(m, "session", 64) };
		case "request":
			return request(m);
		case "keyContext":
			return { kind: "keyContext", suspendPrivileged: flag(m, "suspendPrivileged") };
		case "image":
			return { kind: "image", id: text(m, "id", 64), png: text(m, "png", MAX_IMAGE_BASE64_CHARS) };
		case "imagePlacements":
			return { kind: "imagePlacements", placements: placements(field(m, "placements")) };
		case "answer": {
			const answer = field(m, "text");
			return { kind: "answer", id: text(m, "id", 64), text: answer === null ? null : text(m, "text", MAX_COPY_CHARS) };
		}
		default:
			throw new Refused("kind is not a worker message kind");
	}
}

/** A worker's message, checked: the message (own declared fields only), or why it was refused. */
export function checkWorkerMessage(data: unknown): WorkerMessageCheck {
	try {
		return { ok: true, message: message(data) };
	} catch (error) {
		if (error instanceof Refused) return { ok: false, error: error.message };
		throw error;
	}
}

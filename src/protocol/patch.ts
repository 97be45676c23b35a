import { type } from "./ark.ts";
import { lazy } from "./lazy.ts";

/**
 * State travels as a snapshot, then as patches. A path names a place in the state; growing text travels as
 * `append`, growing lists as `push`, so a streaming answer never resends what the client already has.
 */
export const PathSegment = lazy(() => type("string | number.integer >= 0"));
export const Path = PathSegment.array().atMostLength(32);
export type Path = typeof Path.infer;

export const PatchOp = lazy(() =>
	type({ op: "'set'", path: Path, value: "unknown" })
		.or({ op: "'append'", path: Path, text: "string" })
		.or({ op: "'push'", path: Path, items: "unknown[]" })
		.or({ op: "'splice'", path: Path, start: "number.integer >= 0", remove: "number.integer >= 0", items: "unknown[]" })
		.or({ op: "'del'", path: Path }),
);
export type PatchOp = typeof PatchOp.infer;

export class PatchError extends Error {
	override name = "PatchError";
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
	return typeof value === "object" && value !== null;
}

function shallowCopy(value: Container): Container {
	return Array.isArray(value) ? value.slice() : { ...value };
}

function readChild(parent: Container, key: string | number, path: Path): unknown {
	if (Array.isArray(parent)) {
		if (typeof key !== "number" || key >= parent.length) throw new PatchError(`no index ${key} at ${show(path)}`);
		return parent[key];
	}
	if (typeof key !== "string" || FORBIDDEN_KEYS.has(key) || !Object.hasOwn(parent, key)) {
		throw new PatchError(`no key ${String(key)} at ${show(path)}`);
	}
	return parent[key];
}

function writeChild(parent: Container, key: string | number, value: unknown, path: Path): void {
	if (Array.isArray(parent)) {
		if (typeof key !== "number" || key > parent.length) throw new PatchError(`bad index ${key} at ${show(path)}`);
		parent[key] = value;
		return;
	}
	if (typeof key !== "string" || FORBIDDEN_KEYS.has(key)) throw new PatchError(`bad key at ${show(path)}`);
	parent[key] = value;
}

function show(path: Path): string {
	return path.length === 0 ? "(root)" : path.join(".");
}

/** Applies one op without touching `root`: containers along the path are copied (structural sharing). */
function applyOne(root: unknown, op: PatchOp): unknown {
	const path = op.path;
	if (path.length === 0) {
		if (op.op === "set") return op.value;
		return transformLeaf(root, op);
	}
	if (!isContainer(root)) throw new PatchError("state is not an object");
	const newRoot = shallowCopy(root);
	let parent = newRoot;
	for (let i = 0; i < path.length - 1; i++) {
		const key = path[i]!;
		const child = readChild(parent, key, path);
		if (!isContainer(child)) throw new PatchError(`not an object at ${show(path.slice(0, i + 1))}`);
		const copy = shallowCopy(child);
		writeChild(parent, key, copy, path);
		parent = copy;
	}
	const last = path[path.length - 1]!;
	if (op.op === "set") {
		writeChild(parent, last, op.value, path);
	} else if (op.op === "del") {
		if (Array.isArray(parent)) throw new PatchError(`del on a list at ${show(path)}; use splice`);
		readChild(parent, last, path);
		delete (parent as Record<string, unknown>)[last as string];
	} else {
		writeChild(parent, last, transformLeaf(readChild(parent, last, path), op), path);
	}
	return newRoot;
}

function transformLeaf(value: unknown, op: PatchOp): unknown {
	switch (op.op) {
		case "append":
			if (typeof value !== "string") throw new PatchError(`append to a non-string at ${show(op.path)}`);
			return value + op.text;
		case "push":
			if (!Array.isArray(value)) throw new PatchError(`push to a non-list at ${show(op.path)}`);
			return value.concat(op.items);
		case "splice": {
			if (!Array.isArray(value)) throw new PatchError(`splice of a non-list at ${show(op.path)}`);
			if (op.start > value.length) throw new PatchError(`splice start past the end at ${show(op.path)}`);
			const copy = value.slice();
			copy.splice(op.start, op.remove, ...op.items);
			return copy;
		}
		case "set":
			return op.value;
		case "del":
			throw new PatchError("del of the root");
	}
}

/** Applies ops in order and returns the new state; `state` itself is never modified. Throws PatchError. */
export function applyPatch<T>(state: T, ops: readonly PatchOp[]): T {
	let next: unknown = state;
	for (const op of ops) next = applyOne(next, op);
	return next as T;
}

/** True when every op only appends text: such a patch cannot change the state's shape. */
export function onlyAppends(ops: readonly PatchOp[]): boolean {
	return ops.every((op) => op.op === "append");
}

/** The op that turns text `before` at `path` into `after`: an append when it only grew (streamed output), else a set. */
export function textPatch(path: Path, before: string, after: string): PatchOp {
	return after.startsWith(before)
		? { op: "append", path, text: after.slice(before.length) }
		: { op: "set", path, value: after };
}

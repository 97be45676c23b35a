/**
 * The server's JSON configuration files (models.json, settings.json, tui.json), read so that what is wrong
 * comes out in words a person can act on: the file with its path, then "is empty", "not valid JSON at line 3,
 * column 9 (unexpected ",")" or "providers.x.models[0].id must be a string (was a number)".
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import type { ArkErrors } from "arktype";
import { findJsonSyntaxError } from "./json-syntax.ts";

export type JsonFileRead =
	| { readonly missing: true }
	| { readonly value: unknown }
	/** The whole sentence, beginning with the file's label. */
	| { readonly problem: string };

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** How a file is named in a problem: its name and where it is, e.g. `models.json (/home/me/.pi/p2/models.json)`. */
export function fileLabel(path: string): string {
	return `${basename(path)} (${path})`;
}

export interface ReadJsonOptions {
	/** How the file is named in a problem; `fileLabel(path)` unless given. */
	readonly label?: string;
	readonly maxBytes?: number;
}

/** Reads and parses one JSON file; a missing file is not a problem, anything else that stops its use is. */
export function readJsonFile(path: string, options: ReadJsonOptions = {}): JsonFileRead {
	const label = options.label ?? fileLabel(path);
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	let text: string;
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return { missing: true };
		return { problem: `${label}: cannot be read (${code ?? (error as Error).message})` };
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) return { problem: `${label}: is not a regular file` };
		if (stat.size > maxBytes) return { problem: `${label}: is larger than ${Math.round(maxBytes / 1024)} KiB` };
		const buffer = Buffer.alloc(stat.size);
		let length = 0;
		while (length < buffer.length) {
			const n = readSync(fd, buffer, length, buffer.length - length, null);
			if (n === 0) break;
			length += n;
		}
		text = buffer.subarray(0, length).toString("utf8");
	} catch (error) {
		return { problem: `${label}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "read failed"})` };
	} finally {
		closeSync(fd);
	}
	const parsed = parseJsonText(text);
	return "problem" in parsed ? { problem: `${label}: ${parsed.problem}` } : parsed;
}

/** Parses a file's text (a leading byte-order mark is allowed); the problem says where the JSON breaks. */
export function parseJsonText(text: string): { value: unknown } | { problem: string } {
	const body = text.replace(/^\uFEFF/, "");
	if (body.trim() === "") return { problem: "is empty" };
	try {
		return { value: JSON.parse(body) };
	} catch (error) {
		const at = findJsonSyntaxError(body);
		if (!at) return { problem: `not valid JSON (${(error as Error).message})` };
		return { problem: `not valid JSON at line ${at.line}, column ${at.column} (${at.reason})` };
	}
}

/** A path into a document as a person reads it: `providers.x.models[0].id`. */
export function formatJsonPath(path: readonly (string | number)[]): string {
	let out = "";
	for (const key of path) {
		if (typeof key === "number") out += `[${key}]`;
		else out += out ? `.${key}` : key;
	}
	return out;
}

/**
 * arktype's errors, one sentence each, with their place in the whole document (`at` is where the checked
 * value sits in it): `providers.x.models[0].id must be a string (was a number)`.
 */
export function shapeProblems(errors: ArkErrors, at: readonly (string | number)[] = []): string[] {
	return [...errors].map((error) => {
		// arktype's path is an Array subclass whose `map` builds another of its kind: copy it first.
		const own = Array.from(error.path, (k) => (typeof k === "number" ? k : String(k)));
		const where = formatJsonPath([...at, ...own]);
		// Some of arktype's problems (a union's) already begin with their own path.
		const local = formatJsonPath(own);
		const problem =
			local && error.problem.startsWith(`${local} `) ? error.problem.slice(local.length + 1) : error.problem;
		return where ? `${where} ${problem}` : `the file ${problem}`;
	});
}

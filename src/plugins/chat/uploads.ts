import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyPrivateDir } from "../../server/plugin.ts";

const SESSION_ID = /^[0-9a-f-]{36}$/;

/** What one upload may be, as the launcher checks before sending. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** What one guest may send to one session in all: a shared session's disk is the owner's. */
export const GUEST_UPLOAD_QUOTA = 100 * 1024 * 1024;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export interface UploadMeta {
	readonly id: string;
	readonly name: string;
	readonly size: number;
	readonly mimeType: string;
	/** Who sent it: only they can attach it. */
	readonly by: string;
	readonly at: number;
}

/** The type from the bytes themselves (never from the name the client sent). */
export function sniffType(bytes: Uint8Array): string {
	const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
	if (starts(0x89, 0x50, 0x4e, 0x47)) return "image/png";
	if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
	if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
	if (
		starts(0x52, 0x49, 0x46, 0x46) &&
		bytes[8] === 0x57 &&
		bytes[9] === 0x45 &&
		bytes[10] === 0x42 &&
		bytes[11] === 0x50
	) {
		return "image/webp";
	}
	try {
		new TextDecoder("utf-8", { fatal: true }).decode(bytes);
		return bytes.includes(0) ? "application/octet-stream" : "text/plain";
	} catch {
		return "application/octet-stream";
	}
}

export function isImage(mimeType: string): mimeType is ImageType {
	return (IMAGE_TYPES as readonly string[]).includes(mimeType);
}

/** A file name as shown and stored: the last path part, no control characters, at most 255 characters. */
export function cleanName(name: string): string {
	const base = name.split(/[\\/]/).at(-1) ?? "";
	const clean = base
		.replace(/[\p{Cc}\p{Cf}]/gu, "")
		.trim()
		.slice(0, 255);
	return clean && clean !== "." && clean !== ".." ? clean : "upload";
}

/** Files sent to a session, kept in `<data>/uploads/<session>/` (0700, files 0600) until a message uses them. */
export class Uploads {
	readonly #dir: string;

	constructor(dataDir: string) {
		this.#dir = join(dataDir, "uploads");
	}

	save(session: string, name: string, bytes: Uint8Array, by: string): UploadMeta {
		const dir = join(this.#dir, session);
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		const meta: UploadMeta = {
			id: crypto.randomUUID(),
			name: cleanName(name),
			size: bytes.byteLength,
			mimeType: sniffType(bytes),
			by,
			at: Date.now(),
		};
		writeFileSync(join(dir, `${meta.id}.bin`), bytes, { mode: 0o600, flag: "wx" });
		writeFileSync(join(dir, `${meta.id}.json`), JSON.stringify(meta), { mode: 0o600, flag: "wx" });
		return meta;
	}

	/** Every file sent to the session, newest first. */
	list(session: string): UploadMeta[] {
		if (!/^[0-9a-f-]{36}$/.test(session)) return [];
		let names: string[];
		try {
			names = readdirSync(join(this.#dir, session)).filter((n) => n.endsWith(".json"));
		} catch {
			return [];
		}
		const metas: UploadMeta[] = [];
		for (const name of names) {
			try {
				metas.push(JSON.parse(readFileSync(join(this.#dir, session, name), "utf8")) as UploadMeta);
			} catch {
				// A half-written file: not listed.
			}
		}
		return metas.sort((a, b) => b.at - a.at);
	}

	/** A file of the session for anyone who may see it (a download); undefined for a malformed or unknown id. */
	read(session: string, id: string): { meta: UploadMeta; bytes: Uint8Array } | undefined {
		if (!/^[0-9a-f-]{36}$/.test(session) || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
		try {
			const meta = JSON.parse(readFileSync(join(this.#dir, session, `${id}.json`), "utf8")) as UploadMeta;
			if (meta.id !== id) return undefined;
			return { meta, bytes: readFileSync(join(this.#dir, session, `${id}.bin`)) };
		} catch {
			return undefined;
		}
	}

	/** A clone of the session gets its files, each still its sender's. */
	copy(from: string, to: string): void {
		if (!SESSION_ID.test(from) || !SESSION_ID.test(to)) throw new Error("not a session");
		copyPrivateDir(join(this.#dir, from), join(this.#dir, to));
	}

	/** How many bytes this person has sent to the session so far. */
	bytesBy(session: string, by: string): number {
		return this.list(session)
			.filter((m) => m.by === by)
			.reduce((sum, m) => sum + m.size, 0);
	}

	/** An upload of this session by this person (what a message may attach); undefined for anyone else's. */
	get(session: string, id: string, by: string): { meta: UploadMeta; bytes: Uint8Array } | undefined {
		const file = this.read(session, id);
		return file?.meta.by === by ? file : undefined;
	}
}

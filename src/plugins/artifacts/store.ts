/**
 * Artifacts on the server's disk: `<data>/artifacts/<session>/` holds an index and one file per version
 * (0700 folders, 0600 files), so they outlive the session's worker and the server's restarts.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isRecord, own } from "../../protocol/own-keys.ts";
import { copyPrivateDir } from "../../server/plugin.ts";
import { ARTIFACT_NAME, type ArtifactInfo, type ArtifactKind } from "./contract.ts";

const SESSION_ID = /^[0-9a-f-]{36}$/;
const KINDS: readonly ArtifactKind[] = ["markdown", "text", "html", "svg", "code"];

/** The kind a name says (`.md` Markdown, `.html` HTML, `.svg` SVG, `.txt` text, other extensions code). */
export function kindOf(name: string): ArtifactKind {
	const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
	if (!ext || ext === "md" || ext === "markdown") return "markdown";
	if (ext === "html" || ext === "htm") return "html";
	if (ext === "svg") return "svg";
	if (ext === "txt" || ext === "log") return "text";
	return "code";
}

/** The file of one version: the name in hex, so any allowed name is a safe file name. */
const fileOf = (name: string, version: number) => `${Buffer.from(name).toString("hex")}.${version}`;

export class ArtifactStore {
	readonly #dir: string;

	constructor(dataDir: string) {
		this.#dir = join(dataDir, "artifacts");
	}

	/** Every artifact of the session (its latest version), oldest first. */
	list(session: string): ArtifactInfo[] {
		if (!SESSION_ID.test(session)) return [];
		let raw: unknown;
		try {
			raw = JSON.parse(readFileSync(join(this.#dir, session, "index.json"), "utf8"));
		} catch {
			return [];
		}
		const list = isRecord(raw) ? own(raw, "artifacts") : undefined;
		if (!Array.isArray(list)) return [];
		const out: ArtifactInfo[] = [];
		for (const item of list) {
			if (!isRecord(item)) continue;
			const name = own(item, "name");
			const version = own(item, "version");
			const kind = own(item, "kind");
			const size = own(item, "size");
			const at = own(item, "at");
			if (typeof name !== "string" || !ARTIFACT_NAME.test(name)) continue;
			if (typeof version !== "number" || !Number.isInteger(version) || version < 1) continue;
			if (typeof kind !== "string" || !(KINDS as readonly string[]).includes(kind)) continue;
			if (typeof size !== "number" || typeof at !== "number") continue;
			out.push({ name, version, kind: kind as ArtifactKind, size, at });
		}
		return out;
	}

	/** A new version of `name` (1 when new); the index is replaced whole, never half-written. */
	save(session: string, name: string, content: string, kind: ArtifactKind, now = Date.now()): ArtifactInfo {
		if (!SESSION_ID.test(session)) throw new Error("not a session");
		if (!ARTIFACT_NAME.test(name)) throw new Error("not an artifact name");
		const dir = join(this.#dir, session);
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		const list = this.list(session);
		const before = list.find((a) => a.name === name);
		const info: ArtifactInfo = {
			name,
			version: (before?.version ?? 0) + 1,
			kind,
			size: Buffer.byteLength(content),
			at: now,
		};
		writeFileSync(join(dir, fileOf(name, info.version)), content, { mode: 0o600 });
		const next = [...list.filter((a) => a.name !== name), info];
		const tmp = join(dir, `index.json.${process.pid}.tmp`);
		writeFileSync(tmp, JSON.stringify({ artifacts: next }), { mode: 0o600 });
		renameSync(tmp, join(dir, "index.json"));
		return info;
	}

	/** A clone of the session gets its artifacts, every version. */
	copy(from: string, to: string): void {
		if (!SESSION_ID.test(from) || !SESSION_ID.test(to)) throw new Error("not a session");
		copyPrivateDir(join(this.#dir, from), join(this.#dir, to));
	}

	/** One version's content (the latest when not given); undefined for an unknown name or version. */
	read(session: string, name: string, version?: number): { info: ArtifactInfo; content: string } | undefined {
		const info = this.list(session).find((a) => a.name === name);
		if (!info) return undefined;
		const wanted = version ?? info.version;
		if (!Number.isInteger(wanted) || wanted < 1 || wanted > info.version) return undefined;
		try {
			const content = readFileSync(join(this.#dir, session, fileOf(name, wanted)), "utf8");
			return { info: { ...info, version: wanted, size: Buffer.byteLength(content) }, content };
		} catch {
			return undefined;
		}
	}
}

/**
 * The launcher's own requests to the server beside the socket: files in and out of a session, and ending an
 * owner's sign-in. Fixed routes on the target's origin, its credentials, bounded answers.
 */
import { isRecord, own } from "../protocol/own-keys.ts";
import type { AttachedFile } from "./actions/context.ts";
import type { LaunchTarget } from "./launch-target.ts";
import { plainLine, trustedFetch } from "./trusted-http.ts";

const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;
const FILE_TIMEOUT_MS = 60_000;

/** The server's record of an uploaded file, or undefined when its answer is not one. */
function uploadAnswer(raw: unknown): AttachedFile | undefined {
	if (!isRecord(raw)) return undefined;
	const id = own(raw, "id");
	const name = own(raw, "name");
	const size = own(raw, "size");
	const mimeType = own(raw, "mimeType");
	if (typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
	if (typeof name !== "string" || name.length > 255 || typeof mimeType !== "string" || mimeType.length > 100) {
		return undefined;
	}
	if (typeof size !== "number" || !Number.isFinite(size) || size < 0) return undefined;
	return { id, name, size, mimeType };
}

export interface ServerHttp {
	download(session: string, id: string): Promise<Uint8Array>;
	downloadArtifact(session: string, name: string, version: number): Promise<Uint8Array>;
	upload(session: string, name: string, bytes: Uint8Array): Promise<AttachedFile>;
	/** Only for an owner signed in with a link (this device's own server has no sign-in to end). */
	signOut?(all: boolean): Promise<void>;
}

export function serverHttp(target: LaunchTarget): ServerHttp {
	/** A fixed route's bytes, with the launcher's credentials, bounded in size and time. */
	const fetchBytes = async (path: string) => {
		const res = await trustedFetch({
			origin: target.origin(),
			path,
			headers: target.credentials(),
			timeoutMs: FILE_TIMEOUT_MS,
			maxBytes: MAX_DOWNLOAD_BYTES,
			binary: true,
		});
		if (res.status !== 200 || !res.bytes) throw new Error(`the server refused the file: ${res.status}`);
		return res.bytes;
	};
	return {
		download: (session, id) => fetchBytes(`/download?${new URLSearchParams({ session, id })}`),
		downloadArtifact: (session, name, version) =>
			fetchBytes(`/artifact?${new URLSearchParams({ session, name, version: String(version), download: "1" })}`),
		async upload(session, name, bytes) {
			const query = new URLSearchParams({ session, name: name.slice(0, 255) });
			const res = await trustedFetch({
				origin: target.origin(),
				path: `/upload?${query}`,
				method: "POST",
				headers: { ...target.credentials(), "content-type": "application/octet-stream" },
				body: bytes,
				timeoutMs: FILE_TIMEOUT_MS,
				maxBytes: 8 * 1024,
			});
			if (res.status !== 200) throw new Error(`the server refused the file: ${plainLine(res.body)}`);
			let body: unknown;
			try {
				body = JSON.parse(res.body);
			} catch {
				body = undefined;
			}
			const answer = uploadAnswer(body);
			if (!answer) throw new Error("the server's answer to the upload is not valid");
			return answer;
		},
		...(target.kind === "owner"
			? {
					async signOut(all: boolean) {
						const res = await trustedFetch({
							origin: target.origin(),
							path: all ? "/owner/logout-all" : "/owner/logout",
							method: "POST",
							headers: target.credentials(),
						});
						if (res.status !== 200) throw new Error(`the server answered ${res.status}: ${plainLine(res.body)}`);
					},
				}
			: {}),
	};
}

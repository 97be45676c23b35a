/**
 * The launcher's own requests to the server beside the socket: files in and out of a session, and ending an
 * owner's sign-in. Fixed routes on the target's origin, its credentials, bounded answers.
 */
import { type } from "arktype";
import { lazy } from "../protocol/lazy.ts";
import { isRecord } from "../protocol/own-keys.ts";
import type { AttachedFile } from "./actions/context.ts";
import type { LaunchTarget } from "./launch-target.ts";
import { plainLine, trustedFetch } from "./trusted-http.ts";

const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;
const FILE_TIMEOUT_MS = 60_000;

/** Built on the first upload: the launcher's start builds no schema it does not need yet. */
const UploadAnswer = lazy(() =>
	type({ id: "/^[0-9a-f-]{36}$/", name: "string <= 255", size: "number", mimeType: "string <= 100", "+": "delete" }),
);

export interface ServerHttp {
	download(session: string, id: string): Promise<Uint8Array>;
	upload(session: string, name: string, bytes: Uint8Array): Promise<AttachedFile>;
	/** Only for an owner signed in with a link (this device's own server has no sign-in to end). */
	signOut?(all: boolean): Promise<void>;
}

export function serverHttp(target: LaunchTarget): ServerHttp {
	return {
		async download(session, id) {
			const res = await trustedFetch({
				origin: target.origin(),
				path: `/download?${new URLSearchParams({ session, id })}`,
				headers: target.credentials(),
				timeoutMs: FILE_TIMEOUT_MS,
				maxBytes: MAX_DOWNLOAD_BYTES,
				binary: true,
			});
			if (res.status !== 200 || !res.bytes) throw new Error(`the server refused the file: ${res.status}`);
			return res.bytes;
		},
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
			const answer = isRecord(body) ? UploadAnswer(body) : undefined;
			if (!answer || answer instanceof type.errors) throw new Error("the server's answer to the upload is not valid");
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

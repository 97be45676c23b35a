/**
 * Files sent to a session over HTTP: `POST /upload?session&name` for the next message, `GET /download?session&id`
 * for anyone who may see the session.
 */
import { isOwner, json, maySeeSession, problem, readBoundedBytes, type ServerContext } from "../../server/plugin.ts";
import { GUEST_UPLOAD_QUOTA, MAX_UPLOAD_BYTES, type Uploads } from "./uploads.ts";

const SESSION_ID = /^[0-9a-f-]{36}$/;

export function addFileRoutes(ctx: ServerContext, uploads: Uploads): void {
	// A file for the next message, from someone who may write in that session.
	ctx.routes.add("/upload", {
		async POST(req, request) {
			if (!request.sameOrigin) return problem(403, "cross-origin request refused");
			const principal = request.principal;
			if (!principal) return problem(401, "sign in first");
			const url = new URL(req.url);
			const session = url.searchParams.get("session") ?? "";
			const name = url.searchParams.get("name") ?? "";
			if (!SESSION_ID.test(session) || !ctx.catalog.get(session)) return problem(404, "no such session");
			if (!maySeeSession(principal, session) || principal.role === "view")
				return problem(403, "you cannot send to this session");
			if (!name || name.length > 255) return problem(400, "a file name of 1 to 255 characters is needed");
			const bytes = await readBoundedBytes(req, MAX_UPLOAD_BYTES);
			if (bytes === null) return problem(413, `files are limited to ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`);
			if (!isOwner(principal) && uploads.bytesBy(session, principal.id) + bytes.byteLength > GUEST_UPLOAD_QUOTA) {
				return problem(413, `a guest may send at most ${GUEST_UPLOAD_QUOTA / 1024 / 1024} MiB of files to a session`);
			}
			const meta = uploads.save(session, name, bytes, principal.id);
			return json({ id: meta.id, name: meta.name, size: meta.size, mimeType: meta.mimeType });
		},
	});

	// A file sent to a session, for anyone who may see that session.
	ctx.routes.add("/download", {
		GET(req, request) {
			// A browser's cross-site request never gets a file; the launcher sends its exact Origin.
			if (req.headers.get("origin") !== null && !request.sameOrigin)
				return problem(403, "cross-origin request refused");
			if (req.headers.get("sec-fetch-site") === "cross-site") return problem(403, "cross-site request refused");
			const principal = request.principal;
			if (!principal) return problem(401, "sign in first");
			const url = new URL(req.url);
			const session = url.searchParams.get("session") ?? "";
			const id = url.searchParams.get("id") ?? "";
			if (!SESSION_ID.test(session) || !maySeeSession(principal, session)) return problem(404, "no such file");
			const file = uploads.read(session, id);
			if (!file) return problem(404, "no such file");
			return new Response(file.bytes as BodyInit, {
				headers: {
					"content-type": "application/octet-stream",
					"x-p2-name": encodeURIComponent(file.meta.name),
					"cache-control": "no-store",
				},
			});
		},
	});
}

/**
 * Artifacts: the agent's `artifact` tool writes a named document, versioned per session and kept on the
 * server's disk. Everyone who may see the session lists them (the artifacts object, live) and reads them inline
 * (bounded); `/artifact?session&name&version[&download=1]` serves them to a browser or the launcher's download.
 */
import { obj, opt, str } from "@earendil-works/pi-schema";
import { ProtocolError } from "../../protocol/codes.ts";
import { LiveState, maySeeSession, problem, type ServerPlugin } from "../../server/plugin.ts";
import {
	ARTIFACT_NAME,
	type ArtifactKind,
	type ArtifactsState,
	artifactsContract,
	MAX_ARTIFACT_BYTES,
	MAX_INLINE_CHARS,
} from "./contract.ts";
import { ArtifactStore, kindOf } from "./store.ts";

const SESSION_ID = /^[0-9a-f-]{36}$/;
const KIND_WORDS = ["markdown", "text", "html", "svg", "code"] as const;

const CONTENT_TYPES: Record<ArtifactKind, string> = {
	markdown: "text/markdown; charset=utf-8",
	text: "text/plain; charset=utf-8",
	code: "text/plain; charset=utf-8",
	html: "text/html; charset=utf-8",
	svg: "image/svg+xml",
};

interface ArtifactArgs {
	name: string;
	content: string;
	kind?: string;
}

export const artifactsPlugin: ServerPlugin = {
	name: "artifacts",
	register(ctx) {
		const store = new ArtifactStore(ctx.dataDir);
		ctx.bus.on("session.cloned", ({ from, to }) => store.copy(from, to));
		const live = new Map<string, { state: LiveState<ArtifactsState>; holders: number }>();
		const publish = (session: string) =>
			live.get(session)?.state.update([{ op: "set", path: ["artifacts"], value: store.list(session) }]);

		ctx.agent.add({
			name: "artifacts",
			tools: (scope) => [
				{
					line: "create or update a named document (Markdown, text, HTML, SVG) the people in the session can open",
					tool: {
						name: "artifact",
						label: "artifact",
						description:
							"Create or update a named document for the people in this session (a report, a plan, a diagram). " +
							"Calling it again with the same name saves a new version. The kind follows the name's extension " +
							"(.md Markdown, .html HTML, .svg SVG, .txt text) unless given.",
						parameters: obj({
							name: str({ description: "The document's name, e.g. report.md (letters, digits, space . _ - ( ))" }),
							content: str({ description: "The whole document" }),
							kind: opt(str({ description: "markdown, text, html, svg or code" })),
						}),
						execute: async (_id: string, args: ArtifactArgs) => {
							if (!ARTIFACT_NAME.test(args.name))
								throw new Error(
									"name: 1 to 100 of letters, digits, space and . _ - ( ), starting with a letter or digit",
								);
							if (Buffer.byteLength(args.content) > MAX_ARTIFACT_BYTES)
								throw new Error(`content: at most ${MAX_ARTIFACT_BYTES / 1024} KiB`);
							const kind = (KIND_WORDS as readonly string[]).includes(args.kind ?? "")
								? (args.kind as ArtifactKind)
								: kindOf(args.name);
							const info = store.save(scope.session, args.name, args.content, kind);
							publish(scope.session);
							return {
								content: [{ type: "text", text: `Saved ${info.name} (version ${info.version}, ${info.size} bytes).` }],
								details: { name: info.name, version: info.version, kind: info.kind, size: info.size },
							};
						},
					},
				},
			],
		});

		ctx.host.serve(artifactsContract, {
			open({ session }, { principal }) {
				if (!maySeeSession(principal, session))
					throw new ProtocolError("forbidden", "this session is not shared with you");
				if (!ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
				let held = live.get(session);
				if (!held) {
					held = { state: new LiveState<ArtifactsState>({ artifacts: store.list(session) }), holders: 0 };
					live.set(session, held);
				}
				held.holders++;
				const mine = held;
				return {
					state: mine.state,
					methods: {
						read: ({ name, version }) => {
							const got = store.read(session, name, version);
							if (!got) throw new ProtocolError("not_found", "no such artifact or version");
							const truncated = got.content.length > MAX_INLINE_CHARS;
							return {
								name: got.info.name,
								version: got.info.version,
								kind: got.info.kind,
								text: truncated ? got.content.slice(0, MAX_INLINE_CHARS) : got.content,
								truncated,
							};
						},
					},
					release: () => {
						if (--mine.holders > 0) return;
						if (live.get(session) === mine) live.delete(session);
					},
				};
			},
		});

		// For a browser signed in on its own (owner link or share link) and for the launcher's download.
		ctx.routes.add("/artifact", {
			GET(req, request) {
				if (req.headers.get("origin") !== null && !request.sameOrigin)
					return problem(403, "cross-origin request refused");
				if (req.headers.get("sec-fetch-site") === "cross-site") return problem(403, "cross-site request refused");
				const principal = request.principal;
				if (!principal) return problem(401, "sign in first (owner link or share link)");
				const url = new URL(req.url);
				const session = url.searchParams.get("session") ?? "";
				const name = url.searchParams.get("name") ?? "";
				const versionText = url.searchParams.get("version");
				const version = versionText === null ? undefined : Number(versionText);
				if (!SESSION_ID.test(session) || !maySeeSession(principal, session)) return problem(404, "no such artifact");
				const got = store.read(session, name, version);
				if (!got) return problem(404, "no such artifact");
				const download = url.searchParams.get("download") === "1";
				return new Response(got.content, {
					headers: {
						"content-type": download ? "application/octet-stream" : CONTENT_TYPES[got.info.kind],
						"x-p2-name": encodeURIComponent(got.info.name),
						"cache-control": "no-store",
						"x-content-type-options": "nosniff",
						// An HTML or SVG artifact runs in an opaque origin: it never reaches the server's cookies or pages.
						"content-security-policy":
							"sandbox allow-scripts; default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
						...(download
							? { "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(got.info.name)}` }
							: {}),
					},
				});
			},
		});
	},
};

import { ProtocolError } from "../../protocol/codes.ts";
import { json, problem, readBoundedBytes } from "../../server/http-util.ts";
import { isOwner, maySeeSession } from "../../server/objects/principal.ts";
import type { RouteRequest, ServerContext, ServerPlugin } from "../../server/plugin.ts";
import { checkDirectory } from "../../server/session-directory.ts";
import type { StoredEntry } from "../../server/store/session-store.ts";
import {
	type AckReturnedArgs,
	type ChatInput,
	type CompactArgs,
	type ConfigureArgs,
	chatContract,
	type DequeueArgs,
	type ForkArgs,
	type NewContextArgs,
	type PageArgs,
	type SendArgs,
	type ShellArgs,
} from "./contract.ts";
import { Conversation } from "./conversation.ts";
import { goneDirectory, refuseInGoneDirectory, showGoneDirectory } from "./gone-directory.ts";
import { GUEST_UPLOAD_QUOTA, MAX_UPLOAD_BYTES, Uploads } from "./uploads.ts";

interface Slot {
	readonly conversation: Conversation;
	readonly release: () => void;
	holders: number;
}

/** Live conversations: opened by the first client, kept while someone watches or a run is going. */
class Conversations {
	#ctx: ServerContext;
	#uploads: Uploads;
	#slots = new Map<string, Slot>();

	constructor(ctx: ServerContext, uploads: Uploads) {
		this.#ctx = ctx;
		this.#uploads = uploads;
		ctx.bus.on("sharing.approval", ({ session, on }) => {
			if (on) return;
			for (const slot of this.#slots.values())
				if (slot.conversation.session === session) slot.conversation.releaseWaiting();
		});
		ctx.bus.on("session.busy", ({ session, busy }) => {
			if (busy) return;
			for (const [key, slot] of this.#slots) {
				if (slot.conversation.session === session) this.#maybeDrop(key, slot);
			}
		});
	}

	acquire(input: ChatInput): Slot {
		const key = `${input.session}/${input.conversation}`;
		let slot = this.#slots.get(key);
		if (!slot) {
			if (!this.#ctx.catalog.get(input.session)) throw new ProtocolError("not_found", `no session ${input.session}`);
			const held = this.#ctx.stores.hold(input.session);
			const conversation = new Conversation(this.#ctx, held.store, input.session, input.conversation, this.#uploads);
			slot = { conversation, release: held.release, holders: 0 };
			this.#slots.set(key, slot);
			this.#ctx.bus.emit({ type: "session.watched", session: input.session, watched: true });
		}
		slot.holders++;
		return slot;
	}

	/** A child session holding this conversation's entries before `beforeSeq` (a user message), or all of them. */
	fork(input: ChatInput, beforeSeq: number | undefined, cwd: string | undefined): { session: string } {
		const { catalog, stores, bus } = this.#ctx;
		const record = catalog.get(input.session);
		if (!record) throw new ProtocolError("not_found", `no session ${input.session}`);
		const source = stores.hold(input.session);
		try {
			const rows: StoredEntry[] = [];
			for (let after = 0; ; ) {
				const page = source.store.since(input.conversation, after, 1000);
				rows.push(...page.entries);
				const last = page.entries.at(-1);
				if (!page.more || !last) break;
				after = last.seq;
			}
			if (beforeSeq !== undefined && !rows.some((r) => r.seq === beforeSeq && r.kind === "user")) {
				throw new ProtocolError("not_found", "no message of yours to fork from there");
			}
			const kept = beforeSeq === undefined ? rows : rows.filter((r) => r.seq < beforeSeq);
			if (cwd !== undefined) checkDirectory(cwd);
			const created = catalog.create({
				cwd: cwd ?? record.cwd,
				env: record.env,
				title: record.title,
				model: record.model,
				thinkingLevel: record.thinkingLevel,
				parent: record.id,
			});
			const target = stores.hold(created.id);
			try {
				target.store.appendMany(
					input.conversation,
					kept.map((r) => ({ kind: r.kind, data: r.data, author: r.author })),
				);
			} finally {
				target.release();
			}
			bus.emit({ type: "session.activity", session: created.id });
			return { session: created.id };
		} finally {
			source.release();
		}
	}

	releaseOne(input: ChatInput, slot: Slot): void {
		slot.holders--;
		this.#maybeDrop(`${input.session}/${input.conversation}`, slot);
	}

	#maybeDrop(key: string, slot: Slot): void {
		if (slot.holders > 0 || slot.conversation.busy || this.#slots.get(key) !== slot) return;
		this.#slots.delete(key);
		slot.release();
		const session = slot.conversation.session;
		if (![...this.#slots.values()].some((s) => s.conversation.session === session)) {
			this.#ctx.bus.emit({ type: "session.watched", session, watched: false });
		}
	}

	async close(): Promise<void> {
		await Promise.all([...this.#slots.values()].map((s) => s.conversation.shutdown()));
		const sessions = new Set<string>();
		for (const slot of this.#slots.values()) {
			slot.release();
			sessions.add(slot.conversation.session);
		}
		this.#slots.clear();
		for (const session of sessions) this.#ctx.bus.emit({ type: "session.watched", session, watched: false });
	}
}

/** `POST /upload?session&name`: a file for the next message, from someone who may write in that session. */
async function upload(req: Request, ctx: ServerContext, request: RouteRequest, uploads: Uploads): Promise<Response> {
	if (req.method !== "POST") return problem(405, "POST");
	if (!request.sameOrigin) return problem(403, "cross-origin request refused");
	const principal = request.principal;
	if (!principal) return problem(401, "sign in first");
	const url = new URL(req.url);
	const session = url.searchParams.get("session") ?? "";
	const name = url.searchParams.get("name") ?? "";
	if (!/^[0-9a-f-]{36}$/.test(session) || !ctx.catalog.get(session)) return problem(404, "no such session");
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
}

/** `GET /download?session&id`: a file sent to a session, for anyone who may see that session. */
function download(req: Request, request: RouteRequest, uploads: Uploads): Response {
	if (req.method !== "GET") return problem(405, "GET");
	// A browser's cross-site request never gets a file; the launcher sends its exact Origin.
	if (req.headers.get("origin") !== null && !request.sameOrigin) return problem(403, "cross-origin request refused");
	if (req.headers.get("sec-fetch-site") === "cross-site") return problem(403, "cross-site request refused");
	const principal = request.principal;
	if (!principal) return problem(401, "sign in first");
	const url = new URL(req.url);
	const session = url.searchParams.get("session") ?? "";
	const id = url.searchParams.get("id") ?? "";
	if (!/^[0-9a-f-]{36}$/.test(session) || !maySeeSession(principal, session)) return problem(404, "no such file");
	const file = uploads.read(session, id);
	if (!file) return problem(404, "no such file");
	return new Response(file.bytes as BodyInit, {
		headers: {
			"content-type": "application/octet-stream",
			"x-p2-name": encodeURIComponent(file.meta.name),
			"cache-control": "no-store",
		},
	});
}

export function chatPlugin(): ServerPlugin {
	let live: Conversations | null = null;
	let uploads: Uploads | undefined;
	return {
		name: "chat",
		route(req, ctx, request) {
			const path = new URL(req.url).pathname;
			if (path !== "/upload" && path !== "/download") return undefined;
			uploads ??= new Uploads(ctx.dataDir);
			return path === "/upload" ? upload(req, ctx, request, uploads) : download(req, request, uploads);
		},
		register(ctx) {
			uploads ??= new Uploads(ctx.dataDir);
			const conversations = new Conversations(ctx, uploads);
			live = conversations;
			ctx.host.serve(chatContract, {
				open(raw, { principal }) {
					const input = raw as ChatInput;
					if (!maySeeSession(principal, input.session))
						throw new ProtocolError("forbidden", "this session is not shared with you");
					const slot = conversations.acquire(input);
					const c = slot.conversation;
					showGoneDirectory(c.live, goneDirectory(ctx, input.session));
					let released = false;
					return {
						state: c.live,
						call(method, args, call) {
							const who = call.principal;
							switch (method) {
								case "send":
									refuseInGoneDirectory(ctx, input.session, c.live, who);
									return { status: c.send(args as typeof SendArgs.infer, who) };
								case "stop":
									return c.stop(who);
								case "dequeue":
									return c.dequeue((args as typeof DequeueArgs.infer).id, who);
								case "dequeueOwn":
									return c.dequeueOwn(who);
								case "configure":
									return c.configure(args as typeof ConfigureArgs.infer);
								case "page": {
									const a = args as typeof PageArgs.infer;
									return c.page(a.beforeSeq, a.limit);
								}
								case "approve":
									return c.approve((args as typeof DequeueArgs.infer).id);
								case "reject":
									return c.reject((args as typeof DequeueArgs.infer).id);
								case "compact":
									return c.compact((args as typeof CompactArgs.infer).instructions, who);
								case "shell": {
									refuseInGoneDirectory(ctx, input.session, c.live, who);
									const a = args as typeof ShellArgs.infer;
									return c.shell(a.command, a.includeInContext, who);
								}
								case "fork": {
									const a = args as typeof ForkArgs.infer;
									return conversations.fork(input, a.beforeSeq, a.cwd);
								}
								case "newContext":
									return c.newContext((args as typeof NewContextArgs.infer).handoff);
								case "ackReturned":
									return c.ackReturned((args as typeof AckReturnedArgs.infer).id, who);
								case "files":
									return {
										files: (uploads?.list(input.session) ?? []).map(({ id, name, size, mimeType, at }) => ({
											id,
											name,
											size,
											mimeType,
											at,
										})),
									};
							}
							throw new ProtocolError("unknown_method");
						},
						release() {
							if (released) return;
							released = true;
							conversations.releaseOne(input, slot);
						},
					};
				},
			});
		},
		async close() {
			await live?.close();
			live = null;
		},
	};
}

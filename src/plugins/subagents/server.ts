/**
 * Subagents: the agent's `subagent` tool starts a child conversation in the same session with the
 * task as its first message, waits for its final answer and gives it back with a short trace. Several run at
 * once when the model asks for several in one turn; stopping the parent's run stops them. The conversations
 * object lists the session's conversations for /agents, with archive and restore.
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { obj, opt, str } from "@earendil-works/pi-schema";
import { ProtocolError } from "../../protocol/codes.ts";
import {
	type AgentScope,
	type ConversationRow,
	type ConversationStatus,
	LiveState,
	maySeeSession,
	type ServerContext,
	type ServerPlugin,
} from "../../server/plugin.ts";
import {
	type ConversationItem,
	type ConversationsState,
	conversationsContract,
	MAIN_CONVERSATION,
	progressText,
	SUBAGENT_TOOL,
	type SubagentDetails,
} from "./contract.ts";

/** How deep subagents may start subagents: the main conversation's are at depth 1. */
const DEFAULT_MAX_DEPTH = 1;
const TITLE = 80;
/** A subagent's card follows what it writes at most this often; a tool it starts shows at once. */
const PROGRESS_EVERY_MS = 200;

/**
 * `send` at most every `ms`, the latest line last: a streaming answer changes the activity with every token, and
 * the parent's watchers need not get each one. A new kind of activity (not more of the same text) goes at once.
 */
function throttled(send: (line: string) => void, ms: number): ((line: string) => void) & { stop(): void } {
	let last = 0;
	let pending: string | null = null;
	let timer: ReturnType<typeof setTimeout> | null = null;
	let stopped = false;
	const flush = () => {
		timer = null;
		if (pending === null || stopped) return;
		last = Date.now();
		const line = pending;
		pending = null;
		send(line);
	};
	const progress = (line: string) => {
		if (stopped) return;
		pending = line;
		const streaming = line.startsWith("…") || !/^(→ |thinking$|retrying |compacting )/.test(line);
		if (!streaming || Date.now() - last >= ms) {
			if (timer) clearTimeout(timer);
			return flush();
		}
		timer ??= setTimeout(flush, ms - (Date.now() - last));
	};
	return Object.assign(progress, {
		stop() {
			stopped = true;
			if (timer) clearTimeout(timer);
		},
	});
}

const parameters = obj({
	task: str({ description: "The complete task for the subagent: it sees nothing of this conversation" }),
	model: opt(str({ description: "provider/id of the model to use (default: this conversation's)" })),
});

const TOOL_LINE =
	"Delegate a self-contained task to a subagent (a new conversation with the same tools); several run in parallel";

function titleOf(task: string): string {
	const line = task.replace(/\s+/g, " ").trim();
	return line.length > TITLE ? `${line.slice(0, TITLE - 1)}…` : line;
}

function itemOf(row: ConversationRow): ConversationItem {
	return {
		id: row.id,
		parent: row.parent,
		title: row.title,
		model: row.model,
		status: row.status,
		archived: row.archived,
		createdAt: row.createdAt,
		endedAt: row.endedAt,
	};
}

/** The conversations objects people hold, per session, and the subagent tool's bookkeeping. */
class Subagents {
	readonly #ctx: ServerContext;
	readonly #views = new Map<string, { live: LiveState<ConversationsState>; holders: number }>();
	/** Subagents whose task is running now (`session/id`): their tool call sets their status. */
	readonly #tasks = new Set<string>();

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		// A person's message to a subagent runs it again; how that run ends is its status.
		ctx.bus.on("chat.run", ({ session, conversation, outcome }) => {
			if (conversation === MAIN_CONVERSATION || this.#tasks.has(`${session}/${conversation}`)) return;
			if (!this.#row(session, conversation)) return;
			const status =
				outcome === null ? "running" : outcome === "done" ? "done" : outcome === "aborted" ? "aborted" : "failed";
			this.#setStatus(session, conversation, status);
		});
	}

	/** A clone of the session gets its subagents' conversations as they are (their entries are the chat's). */
	copyConversations(from: string, to: string): void {
		const source = this.#ctx.stores.hold(from);
		const target = this.#ctx.stores.hold(to);
		try {
			for (const row of source.store.conversationRows()) {
				const { id, parent, title, model, status, archived, createdAt, endedAt } = row;
				target.store.addConversation({ id, parent, title, model, at: createdAt });
				if (status !== "running") target.store.setConversationStatus(id, status, endedAt ?? createdAt);
				if (archived) target.store.setConversationArchived(id, true);
			}
		} finally {
			target.release();
			source.release();
		}
	}

	state(session: string): ConversationsState {
		const record = this.#ctx.catalog.get(session);
		const held = this.#ctx.stores.hold(session);
		try {
			const main: ConversationItem = {
				id: MAIN_CONVERSATION,
				parent: null,
				title: record?.title ?? "",
				model: null,
				status: null,
				archived: false,
				createdAt: record?.createdAt ?? 0,
				endedAt: null,
			};
			return { conversations: [main, ...held.store.conversationRows().map(itemOf)] };
		} finally {
			held.release();
		}
	}

	publish(session: string): void {
		const view = this.#views.get(session);
		if (view) view.live.update([{ op: "set", path: [], value: this.state(session) }]);
	}

	#row(session: string, id: string): ConversationRow | undefined {
		const held = this.#ctx.stores.hold(session);
		try {
			return held.store.conversationRow(id);
		} finally {
			held.release();
		}
	}

	open(session: string) {
		if (!this.#ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
		let view = this.#views.get(session);
		if (!view) {
			view = { live: new LiveState(this.state(session)), holders: 0 };
			this.#views.set(session, view);
		}
		view.holders++;
		const held = view;
		let released = false;
		return {
			state: held.live,
			methods: {
				archive: ({ id }: { id: string }) => this.#archive(session, id, true),
				restore: ({ id }: { id: string }) => this.#archive(session, id, false),
			},
			release: () => {
				if (released) return;
				released = true;
				if (--held.holders > 0) return;
				if (this.#views.get(session) === held) this.#views.delete(session);
			},
		};
	}

	#archive(session: string, id: string, archived: boolean): null {
		if (id === MAIN_CONVERSATION) throw new ProtocolError("bad_args", "the main conversation cannot be archived");
		const held = this.#ctx.stores.hold(session);
		try {
			const row = held.store.conversationRow(id);
			if (!row) throw new ProtocolError("not_found", `no subagent conversation ${id}`);
			if (archived && row.status === "running") {
				throw new ProtocolError("conflict", "this subagent is still working; stop it first");
			}
			held.store.setConversationArchived(id, archived);
		} finally {
			held.release();
		}
		this.publish(session);
		return null;
	}

	/** How deep `conversation` is: the main one is 0, its subagents 1, theirs 2. */
	depth(session: string, conversation: string): number {
		const held = this.#ctx.stores.hold(session);
		try {
			let depth = 0;
			let at = conversation;
			const seen = new Set<string>();
			while (at !== MAIN_CONVERSATION && !seen.has(at)) {
				seen.add(at);
				const row = held.store.conversationRow(at);
				if (!row) break;
				depth++;
				at = row.parent;
			}
			return depth;
		} finally {
			held.release();
		}
	}

	/** The `provider/id` a new subagent answers with: the one asked for, else its parent's, else the session's. */
	#modelFor(session: string, parent: ConversationRow | undefined, asked: string | undefined): string {
		const { models, settings, catalog } = this.#ctx;
		const usable = (key: string | null | undefined) => {
			const [provider, ...rest] = (key ?? "").split("/");
			return provider && rest.length ? models.find(provider, rest.join("/")) : undefined;
		};
		if (asked !== undefined) {
			const model = usable(asked);
			if (!model) {
				const names = models
					.usable()
					.slice(0, 20)
					.map((m) => `${m.provider}/${m.id}`);
				throw new Error(`No usable model ${asked}. Usable models: ${names.join(", ") || "none"}`);
			}
			return asked;
		}
		const fallback = settings.value.defaultModel;
		const model =
			usable(parent?.model) ??
			usable(catalog.get(session)?.model) ??
			(fallback ? models.find(fallback.provider, fallback.id) : undefined) ??
			models.usable()[0];
		if (!model) throw new Error("No model is available for a subagent");
		return `${model.provider}/${model.id}`;
	}

	#newId(session: string): string {
		const held = this.#ctx.stores.hold(session);
		try {
			for (;;) {
				const id = `agent-${crypto.randomUUID().slice(0, 8)}`;
				if (!held.store.conversationRow(id) && held.store.count(id) === 0) return id;
			}
		} finally {
			held.release();
		}
	}

	tool(scope: AgentScope): AgentTool<typeof parameters, SubagentDetails> {
		return {
			name: SUBAGENT_TOOL,
			label: SUBAGENT_TOOL,
			description:
				"Start a subagent: a new conversation in this session, with the same tools and working directory, whose first message is the task. It works on its own and its final answer comes back as this tool's result, with a short trace of what it did. Give it everything it needs in the task. Call the tool several times in one turn to run subagents in parallel.",
			parameters,
			execute: async (_callId, { task, model }, signal, onUpdate) => {
				const { session } = scope;
				const tasks = this.#ctx.services.get("chatTasks");
				if (!tasks) throw new Error("subagents are not available on this server");
				if (!task.trim()) throw new Error("a subagent needs a task");
				if (signal?.aborted) throw new Error("aborted");
				const held = this.#ctx.stores.hold(session);
				let row: ConversationRow;
				try {
					const parent = held.store.conversationRow(scope.conversation);
					const key = this.#modelFor(session, parent, model);
					row = held.store.addConversation({
						id: this.#newId(session),
						parent: scope.conversation,
						title: titleOf(task),
						model: key,
					});
				} finally {
					held.release();
				}
				this.publish(session);
				const key = `${session}/${row.id}`;
				this.#tasks.add(key);
				const details = (status: ConversationStatus, trace: readonly string[]): SubagentDetails => ({
					conversation: row.id,
					title: row.title,
					model: row.model ?? "",
					status,
					trace,
				});
				const send = (line: string) =>
					onUpdate?.({
						content: [{ type: "text", text: progressText(row.id, row.model ?? "", line) }],
						details: details("running", []),
					});
				const progress = throttled(send, PROGRESS_EVERY_MS);
				send("starting");
				let status: ConversationStatus = "failed";
				try {
					const result = await tasks.run({
						session,
						conversation: row.id,
						text: task,
						signal: signal ?? new AbortController().signal,
						onActivity: progress,
					});
					status = result.outcome === "done" ? "done" : result.outcome === "aborted" ? "aborted" : "failed";
					const said =
						status === "done"
							? result.answer || "(the subagent gave no answer)"
							: `The subagent ${status === "aborted" ? "was stopped" : "failed"}${result.answer ? `: ${result.answer}` : "."}`;
					const trace = result.trace.length ? `\n\nWhat it did:\n${result.trace.map((l) => `- ${l}`).join("\n")}` : "";
					return {
						content: [{ type: "text", text: `${said}${trace}\n\n(conversation ${row.id}; /agents opens it)` }],
						details: details(status, result.trace),
					};
				} finally {
					progress.stop();
					this.#tasks.delete(key);
					this.#setStatus(session, row.id, status);
				}
			},
		};
	}

	#setStatus(session: string, id: string, status: ConversationStatus): void {
		const held = this.#ctx.stores.hold(session);
		try {
			held.store.setConversationStatus(id, status);
		} catch (error) {
			console.error(`the status of subagent ${id} could not be stored:`, error);
		} finally {
			held.release();
		}
		this.publish(session);
	}
}

export const subagentsPlugin: ServerPlugin = {
	name: "subagents",
	register(ctx) {
		const subagents = new Subagents(ctx);
		ctx.agent.add({
			name: "subagents",
			tools(scope) {
				const max = ctx.settings.value.subagents?.maxDepth ?? DEFAULT_MAX_DEPTH;
				if (subagents.depth(scope.session, scope.conversation) >= max) return [];
				return [{ tool: subagents.tool(scope), line: TOOL_LINE }];
			},
		});
		ctx.host.serve(conversationsContract, {
			open(input, { principal }) {
				if (!maySeeSession(principal, input.session))
					throw new ProtocolError("forbidden", "this session is not shared with you");
				return subagents.open(input.session);
			},
		});
		// A new title for the session is the main conversation's.
		ctx.bus.on("session.activity", ({ session }) => subagents.publish(session));
		ctx.bus.on("session.cloned", ({ from, to }) => subagents.copyConversations(from, to));
	},
};

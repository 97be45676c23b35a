import type { UserMessage } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import type { Author } from "../../protocol/common.ts";
import {
	DuplicateRequestError,
	isOwner,
	type LiveState,
	type PluginEntry,
	type Principal,
	type QueuedRow,
	type ServerContext,
	type SessionStore,
	type StoredEntry,
} from "../../server/plugin.ts";
import { attachedFiles, withFiles } from "./attachments.ts";
import { Compactor } from "./compactor.ts";
import type { ChatEntry, ChatState, ConfigureArgs, ModelState, QueueMode } from "./contract.ts";
import { afterStored, authorOf, ConversationCore } from "./conversation-core.ts";
import { displayPng, entryImages } from "./entry-images.ts";
import { withContext } from "./history.ts";
import { InputQueue } from "./input-queue.ts";
import { chooseModel, modelState, resolveThinking } from "./model-choice.ts";
import { authorIdOf, type Said } from "./pending-inputs.ts";
import { Runs } from "./runs.ts";
import { ShellCommands, type ShellOutcome } from "./shell.ts";
import { readStored } from "./stored-data.ts";
import { AGENT_AUTHOR, activityLine, type TaskResult, taskResult } from "./tasks.ts";
import type { Uploads } from "./uploads.ts";
import { type PluginData, type StoredData, toView } from "./view.ts";

export interface SendArgs {
	readonly text: string;
	readonly mode: QueueMode;
	readonly requestId: string;
	readonly attachments?: readonly string[];
	readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * One conversation on the server: its committed entries (in the session store), the live run, the queue and
 * the replicated state every client of it shares. Keys arrive as method calls; state leaves as patches. The
 * jobs are the runs (runs.ts), compaction (compactor.ts), `!` commands (shell.ts), files (attachments.ts) and
 * the model (model-choice.ts); this class takes the calls and keeps the queue's rules.
 */
export class Conversation {
	readonly #core: ConversationCore;
	readonly #queue: InputQueue;
	readonly #runs: Runs;
	readonly #compactor: Compactor;
	readonly #uploads: Uploads;
	readonly #shells: ShellCommands;

	constructor(ctx: ServerContext, store: SessionStore, session: string, conversation: string, uploads: Uploads) {
		this.#core = new ConversationCore(ctx, store, session, conversation);
		this.#queue = new InputQueue(this.#core);
		this.#compactor = new Compactor(this.#core);
		this.#runs = new Runs(this.#core, this.#queue, this.#compactor);
		this.#shells = new ShellCommands(this.#core);
		this.#uploads = uploads;
	}

	get session(): string {
		return this.#core.session;
	}

	get live(): LiveState<ChatState> {
		return this.#core.live;
	}

	/** Something runs: the agent, a compaction, or a `!` command (whose entry may still wait to be placed). */
	get busy(): boolean {
		return this.#core.busy;
	}

	/** Resolves when the current run (if any) has ended. */
	idle(): Promise<void> {
		return this.#runs.idle();
	}

	send(args: SendArgs, principal: Principal): "started" | "queued" | "duplicate" | "kept" {
		const core = this.#core;
		// A retried request: stored as an entry, or queued (perhaps handed back after a restart) under this id.
		if (core.store.byRequestId(core.id, args.requestId) || core.store.queuedByRequestId(core.id, args.requestId)) {
			return "duplicate";
		}
		const author = authorOf(principal);
		const ids = args.attachments ?? [];
		if (!args.text.trim() && !ids.length) throw new ProtocolError("bad_args", "a message needs text or a file");
		// The plugins' say first (chat mode keeps a chat message as its own entry): approval holds only what runs.
		const outcome = core.ctx.agent.input(
			{ session: core.session, conversation: core.id },
			{ text: args.text, author, files: ids.length, extra: args.extra },
		);
		if ("refuse" in outcome) throw new ProtocolError("conflict", outcome.refuse);
		if ("keep" in outcome) return this.#keep(outcome.keep, author, args.requestId);
		const context = outcome.context();
		const said: Said = {
			...(context ? { context } : {}),
			...(outcome.lead ? { lead: outcome.lead } : {}),
		};
		const content = withContext(args.text, said.context);
		const doing = core.activity.kind;
		if (doing === "compaction") {
			throw new ProtocolError("conflict", "Wait for the compaction to finish (Escape cancels it).");
		}
		if (doing === "shell") throw new ProtocolError("conflict", "Wait for the command to finish (Escape cancels it).");
		// Approval mode: a full guest's message waits, marked, until the owner accepts or rejects it.
		const hold = principal.role === "full" && core.ctx.services.get("approvalMode")?.isOn(core.session) === true;
		if (hold && ids.length) {
			throw new ProtocolError("conflict", "the owner approves guests' messages here; send the text without files");
		}
		if (ids.length) return this.#sendWithFiles(args, ids, principal, said);
		if (doing === "run" || hold) {
			let row: QueuedRow;
			try {
				row = core.store.enqueue(core.id, {
					id: crypto.randomUUID(),
					mode: args.mode,
					text: args.text,
					author,
					requestId: args.requestId,
				});
			} catch (error) {
				if (error instanceof DuplicateRequestError) return "duplicate";
				throw error;
			}
			const message: UserMessage = { role: "user", content, timestamp: row.at };
			this.#queue.add(row, message, hold, said, outcome.context);
			return "queued";
		}
		const engine = this.#runs.agent(core.requireModel());
		const at = Date.now();
		const data = { kind: "user", text: args.text, ...said } satisfies StoredData;
		try {
			this.#runs.start(
				engine,
				{ role: "user", content, timestamp: at },
				{ entry: { kind: "user", data, author, requestId: args.requestId, at } },
			);
		} catch (error) {
			if (error instanceof DuplicateRequestError) return "duplicate";
			throw error;
		}
		core.nameSessionAfter(args.text);
		return "started";
	}

	/** A message with files (see attachments.ts); only while no run is going, as a queued input is text. */
	#sendWithFiles(args: SendArgs, ids: readonly string[], principal: Principal, said: Said): "started" | "duplicate" {
		const core = this.#core;
		if (core.activity.kind === "run") {
			throw new ProtocolError("conflict", "files are sent when the agent is not working; stop it or wait");
		}
		const files = attachedFiles(this.#uploads, core.session, ids, principal.id);
		const model = core.requireModel();
		const { text, images } = withFiles(args.text, files, model);
		// The model reads what plugins added before the text (as history.ts rebuilds it); the entry keeps them apart.
		const read = withContext(text, said.context);
		const content: UserMessage["content"] = images.length ? [{ type: "text", text: read }, ...images] : read;
		const engine = this.#runs.agent(model);
		const at = Date.now();
		const data = { kind: "user", text, ...(images.length ? { images } : {}), ...said } satisfies StoredData;
		try {
			this.#runs.start(
				engine,
				{ role: "user", content, timestamp: at },
				{ entry: { kind: "user", data, author: authorOf(principal), requestId: args.requestId, at } },
			);
		} catch (error) {
			if (error instanceof DuplicateRequestError) return "duplicate";
			throw error;
		}
		if (args.text.trim()) core.nameSessionAfter(args.text);
		return "started";
	}

	/** A plugin's entry of its own (chat mode switched on): stored, then shown to everyone watching. */
	note(entry: PluginEntry, author: Author | null): void {
		this.#keep(entry, author, undefined);
	}

	/** A plugin kept the message as its own entry: stored with its author, shown to everyone; no run starts. */
	#keep(entry: PluginEntry, author: Author | null, requestId: string | undefined): "kept" | "duplicate" {
		const core = this.#core;
		const kind = entry.type as PluginData["kind"];
		let stored: StoredEntry;
		try {
			stored = core.store.append(core.id, {
				kind,
				data: { kind, data: entry.data } satisfies StoredData,
				author,
				...(requestId ? { requestId } : {}),
			});
		} catch (error) {
			if (error instanceof DuplicateRequestError) return "duplicate";
			throw error;
		}
		core.show(stored);
		afterStored("sorting the session first", () => core.ctx.catalog.touch(core.session));
		return "kept";
	}

	/**
	 * pi's Escape, in pi's order: the running agent, else a compaction, else a `!` command. The caller's own queued
	 * texts come back to them. Anyone who may stop (the owner and guests with full access) aborts the run or the
	 * compaction, and others' queued texts go back to their authors; a `!` command is cancelled by whoever ran
	 * it, or an owner.
	 */
	stop(principal: Principal): { stopped: boolean; texts: string[] } {
		const mine: string[] = [];
		const theirs: string[] = [];
		for (const q of this.#queue.all()) (authorIdOf(q) === principal.id ? mine : theirs).push(q.row.id);
		const texts = this.#core.store.withdraw(mine).map((row) => row.text);
		const doing = this.#core.activity;
		if (doing.kind === "run") {
			this.#queue.clear(theirs);
			this.#core.agent?.abort();
			return { stopped: true, texts };
		}
		if (doing.kind === "compaction") {
			this.#queue.forget(mine);
			doing.abort.abort();
			return { stopped: true, texts };
		}
		if (this.#shells.running) {
			this.#queue.forget(mine);
			return { stopped: this.#shells.cancel(principal), texts };
		}
		// Nothing runs: an owner's Escape also sends what waits for approval back to its authors.
		if (isOwner(principal)) this.#queue.clear(theirs);
		else this.#queue.forget(mine);
		return { stopped: false, texts };
	}

	/** Takes back one queued message. An owner taking someone else's sends it back to its author's drafts. */
	dequeue(id: string, principal: Principal): { text: string | null } {
		const q = this.#queue.get(id);
		if (!q) return { text: null };
		if (authorIdOf(q) !== principal.id) {
			if (!isOwner(principal)) {
				throw new ProtocolError("forbidden", "only its author or an owner may take back a queued message");
			}
			this.#queue.returnToAuthor(q);
			return { text: null };
		}
		const [row] = this.#core.store.withdraw([id]);
		this.#queue.forget([id]);
		return { text: row?.text ?? null };
	}

	/** pi's Alt+Up: the caller's queued messages back into their editor; others' stay queued. */
	dequeueOwn(principal: Principal): { restored: string[]; skipped: number } {
		const ids = this.#queue.byAuthor(principal.id).map((q) => q.row.id);
		const rows = this.#core.store.withdraw(ids);
		this.#queue.forget(ids);
		return { restored: rows.map((r) => r.text), skipped: this.#queue.size };
	}

	/** Approval mode: the owner accepts a guest's waiting message; it runs now, or at its turn in the queue. */
	approve(id: string): null {
		const q = this.#queue.get(id);
		if (!q?.waiting) throw new ProtocolError("not_found", "no message is waiting with that id");
		const doing = this.#core.activity.kind;
		if (doing === "compaction" || doing === "shell") {
			throw new ProtocolError("conflict", "Wait for what is running to finish.");
		}
		if (doing === "run") {
			this.#queue.accept(q);
			return null;
		}
		const failed = this.#runs.runQueued(this.#runs.agent(this.#core.requireModel()), q);
		if (failed) throw failed;
		return null;
	}

	/** Approval mode: the owner turns a guest's waiting message down; it goes back to the guest's editor. */
	reject(id: string): null {
		const q = this.#queue.get(id);
		if (!q?.waiting) throw new ProtocolError("not_found", "no message is waiting with that id");
		this.#queue.returnToAuthor(q);
		return null;
	}

	/** Approval mode was turned off: what waits is accepted, in the order it was sent. */
	releaseWaiting(): void {
		for (const q of this.#queue.all()) if (q.waiting && this.#queue.get(q.row.id)) this.approve(q.row.id);
	}

	ackReturned(id: string, principal: Principal): null {
		const core = this.#core;
		const index = core.live.state.returned.findIndex((r) => r.id === id);
		const item = core.live.state.returned[index];
		if (!item) return null;
		if (item.authorId !== principal.id && !isOwner(principal)) {
			throw new ProtocolError("forbidden", "these texts belong to someone else");
		}
		core.store.withdraw([id]);
		core.update([{ op: "splice", path: ["returned"], start: index, remove: 1, items: [] }]);
		return null;
	}

	/** pi's /compact: see compactor.ts. */
	compact(instructions: string | undefined, principal: Principal): Promise<{ tokensBefore: number; aborted: boolean }> {
		return this.#compactor.compact(instructions, principal.id, "manual");
	}

	newContext(handoff: string | undefined): null {
		return this.#compactor.newContext(handoff);
	}

	/** pi's `!cmd`: see shell.ts. */
	shell(command: string, includeInContext: boolean, requestId: string, principal: Principal): Promise<ShellOutcome> {
		return this.#shells.run(command, includeInContext, requestId, principal);
	}

	configure(args: typeof ConfigureArgs.infer): ModelState {
		const core = this.#core;
		const { model, level } = chooseModel(core.ctx, core.session, args, core.live.state.thinkingLevel, core.ownModel);
		if (core.ownModel !== null) {
			// A subagent's conversation keeps its own model.
			const key = `${model.provider}/${model.id}`;
			core.store.setConversationModel(core.id, key);
			core.ownModel = key;
		}
		core.agent?.setModel(model, level);
		const state = modelState(model);
		core.update([
			{ op: "set", path: ["model"], value: state },
			{ op: "set", path: ["thinkingLevel"], value: level },
		]);
		return state;
	}

	/**
	 * The server's models changed: the model this conversation resolves to now (its own, else the default, else
	 * the first usable) is shown and used from the next turn on; e.g. the first provider signed in gives a
	 * conversation that had none its model at once.
	 */
	followModels(): void {
		const core = this.#core;
		const model = core.model();
		const level = resolveThinking(core.ctx, core.session, model);
		if (model) core.agent?.setModel(model, level);
		const state = modelState(model);
		const now = core.live.state;
		if (JSON.stringify(now.model) === JSON.stringify(state) && now.thinkingLevel === level) return;
		core.update([
			{ op: "set", path: ["model"], value: state },
			{ op: "set", path: ["thinkingLevel"], value: level },
		]);
	}

	/** An entry's image (a user's attachment, a tool's result) as a PNG for the terminal. */
	async image(seq: number, index: number): Promise<{ png: string }> {
		const row = this.#core.store.page(this.#core.id, { beforeSeq: seq + 1, limit: 1 }).entries[0];
		const data = row?.seq === seq ? readStored(row) : undefined;
		const image = data ? entryImages(data)[index] : undefined;
		if (!image) throw new ProtocolError("not_found", "no such image in this conversation");
		try {
			return { png: await displayPng(image) };
		} catch {
			throw new ProtocolError("unavailable", "this image cannot be shown");
		}
	}

	page(beforeSeq: number, limit: number): { entries: ChatEntry[]; more: boolean } {
		const page = this.#core.store.page(this.#core.id, { beforeSeq, limit });
		return { entries: page.entries.map(toView), more: page.more };
	}

	/**
	 * A task another conversation's agent gives this one (a subagent's): it runs as this conversation's message,
	 * and resolves when the agent has nothing more to do (what people queued meanwhile runs too) with its final
	 * answer and a trace. `signal` aborts it (the parent's run was stopped); `onActivity` hears what it does.
	 */
	async task(text: string, signal: AbortSignal, onActivity: (line: string) => void): Promise<TaskResult> {
		const core = this.#core;
		if (core.activity.kind !== "idle") throw new ProtocolError("conflict", "this conversation is busy");
		const engine = this.#runs.agent(core.requireModel());
		const at = Date.now();
		const after = core.store.window(core.id, 1)[0]?.seq ?? 0;
		this.#runs.start(
			engine,
			{ role: "user", content: text, timestamp: at },
			{ entry: { kind: "user", data: { kind: "user", text } satisfies StoredData, author: AGENT_AUTHOR, at } },
		);
		let last = "";
		const watch = core.live.subscribe(() => {
			const line = activityLine(core.live.state);
			if (line === last || line === "") return;
			last = line;
			onActivity(line);
		});
		const abort = () => this.#abortAll();
		if (signal.aborted) abort();
		else signal.addEventListener("abort", abort, { once: true });
		try {
			await this.#runs.settled();
		} finally {
			watch.unsubscribe();
			signal.removeEventListener("abort", abort);
		}
		const outcome = signal.aborted ? "aborted" : (this.#runs.lastOutcome ?? "error");
		const entries = core.allEntries().filter((e) => e.seq > after);
		return taskResult(outcome, entries);
	}

	/** Stops the run and gives what is queued back to its authors: the one who gave the task stopped it. */
	#abortAll(): void {
		this.#queue.clear(this.#queue.all().map((q) => q.row.id));
		this.#core.agent?.abort();
	}

	/** Aborts any run and waits for it, e.g. at shutdown. */
	shutdown(): Promise<void> {
		return this.#runs.shutdown();
	}
}

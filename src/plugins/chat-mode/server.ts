/**
 * Chat mode on the server: whether it is on for a session (kept in `chat-mode.json`), who is here, and its say
 * in each message sent to a session's main conversation. While on, a message without @pi is kept as a chat
 * message (the agent does not run, so approval mode does not hold it); one with @pi runs the agent with the
 * chat since its last run before it, each line attributed. A reply quotes the message it answers.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { authorLabel } from "../../protocol/author-label.ts";
import { ProtocolError } from "../../protocol/codes.ts";
import { type Author, MAIN_CONVERSATION } from "../../protocol/common.ts";
import { errorText } from "../../protocol/errors.ts";
import { own } from "../../protocol/own-keys.ts";
import {
	type InputDecision,
	LiveState,
	maySeeSession,
	type PersonInput,
	type Principal,
	type ServerContext,
	type ServerPlugin,
	type StoredEntry,
	writePrivateFile,
} from "../../server/plugin.ts";
import {
	type ChatModeState,
	chatModeContract,
	MAX_QUOTE,
	MESSAGE_ENTRY,
	type MessageData,
	type Quote,
	REPLY_FIELD,
	SWITCH_ENTRY,
} from "./contract.ts";
import { chatContext, firstLine, mentionsAgent, readAuthor, replyLine } from "./display.ts";

/** How far back the chat since the agent's last run is looked for (and at most how much of it the model reads). */
const LOOK_BACK = 200;
/** Read back this many entries at a time (most mentions come a few lines after the last run). */
const PAGE = 16;

/** The sessions chat mode is on for, in one small file beside the server's data. */
class ChatModeFile {
	readonly #path: string;
	readonly #on: Set<string>;

	/** `problem` hears why the file could not be read (it is then left as it is until the next switch). */
	constructor(dataDir: string, problem: (text: string) => void) {
		this.#path = join(dataDir, "chat-mode.json");
		this.#on = new Set(this.#read(problem));
	}

	#read(problem: (text: string) => void): string[] {
		let text: string;
		try {
			text = readFileSync(this.#path, "utf8");
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOENT")
				problem(`${this.#path} could not be read: ${errorText(error)}`);
			return [];
		}
		try {
			const on = own(JSON.parse(text) as unknown, "on");
			if (Array.isArray(on)) return on.filter((s): s is string => typeof s === "string");
		} catch {
			// Said below.
		}
		problem(`${this.#path} is not chat mode's list of sessions; chat mode starts off everywhere`);
		return [];
	}

	isOn(session: string): boolean {
		return this.#on.has(session);
	}

	/** Written before it is in effect: a failed write changes nothing. */
	set(session: string, on: boolean): void {
		const next = new Set(this.#on);
		if (on) next.add(session);
		else next.delete(session);
		writePrivateFile(this.#path, `${JSON.stringify({ on: [...next] })}\n`);
		if (on) this.#on.add(session);
		else this.#on.delete(session);
	}
}

/** What an entry says, for a quote or for the model: a person's text, a chat message, an answer's text. */
function entryText(entry: StoredEntry): string | null {
	const data = entry.data;
	if (entry.kind === "user") {
		const text = own(data, "text");
		return typeof text === "string" ? text : null;
	}
	if (entry.kind === MESSAGE_ENTRY) {
		const text = own(own(data, "data"), "text");
		return typeof text === "string" ? text : null;
	}
	if (entry.kind === "assistant") {
		const content = own(own(data, "message"), "content");
		if (!Array.isArray(content)) return null;
		const texts = content.flatMap((c) =>
			own(c, "type") === "text" && typeof own(c, "text") === "string" ? [own(c, "text") as string] : [],
		);
		return texts.join("\n");
	}
	return null;
}

function authorName(entry: StoredEntry): string {
	if (entry.kind === "assistant") return "pi";
	return readAuthor(entry.author)?.name ?? "someone";
}

/** Who wrote an entry, as the transcript shows people. */
function entryAuthorLabel(entry: StoredEntry): string {
	return entry.kind === "assistant" ? "pi" : authorLabel(readAuthor(entry.author));
}

interface SessionObject {
	readonly live: LiveState<ChatModeState>;
	/** Who holds it now: each person once, with how many of their screens do. */
	readonly people: Map<string, { author: Author; count: number }>;
}

class ChatMode {
	readonly #ctx: ServerContext;
	readonly #file: ChatModeFile;
	readonly #open = new Map<string, SessionObject>();

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		this.#file = new ChatModeFile(ctx.dataDir, (text) => ctx.log.warn("server", text));
		// A run started (its message is stored) or ended: what waits for @pi is counted again.
		ctx.bus.on("chat.run", ({ session, conversation }) => {
			if (conversation === MAIN_CONVERSATION) this.#refresh(session);
		});
	}

	/**
	 * The chat messages since the agent last ran (since the last message that ran it, a compaction or a fresh
	 * context), oldest first: read back a page at a time, at most LOOK_BACK entries.
	 */
	#sinceLastRun(session: string): StoredEntry[] {
		const held = this.#ctx.stores.hold(session);
		const out: StoredEntry[] = [];
		try {
			let beforeSeq: number | undefined;
			for (let read = 0; read < LOOK_BACK; ) {
				const page = held.store.page(MAIN_CONVERSATION, { ...(beforeSeq ? { beforeSeq } : {}), limit: PAGE });
				for (let i = page.entries.length - 1; i >= 0; i--) {
					const entry = page.entries[i]!;
					if (entry.kind === "user" || entry.kind === "compaction" || entry.kind === "reset") return out;
					if (entry.kind === MESSAGE_ENTRY) out.unshift(entry);
				}
				read += page.entries.length;
				beforeSeq = page.entries[0]?.seq;
				if (!page.more || beforeSeq === undefined) break;
			}
			return out;
		} finally {
			held.release();
		}
	}

	#state(session: string, people: Map<string, { author: Author; count: number }>): ChatModeState {
		return {
			on: this.#file.isOn(session),
			waiting: this.#file.isOn(session) ? this.#sinceLastRun(session).length : 0,
			people: [...people.values()].map((p) => p.author),
		};
	}

	#refresh(session: string): void {
		const object = this.#open.get(session);
		if (!object) return;
		let next: ChatModeState;
		try {
			next = this.#state(session, object.people);
		} catch {
			return;
		}
		if (JSON.stringify(next) !== JSON.stringify(object.live.state)) {
			object.live.update([{ op: "set", path: [], value: next }]);
		}
	}

	open(session: string, principal: Principal) {
		if (!maySeeSession(principal, session)) throw new ProtocolError("forbidden", "this session is not shared with you");
		if (!this.#ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
		let object = this.#open.get(session);
		if (!object) {
			const people = new Map<string, { author: Author; count: number }>();
			object = { live: new LiveState(this.#state(session, people)), people };
			this.#open.set(session, object);
		}
		const held = object;
		const me = held.people.get(principal.id);
		if (me) me.count++;
		else
			held.people.set(principal.id, {
				author: { id: principal.id, name: principal.name, role: principal.role },
				count: 1,
			});
		this.#refresh(session);
		let released = false;
		return {
			state: held.live,
			methods: {
				set: ({ on }: { on: boolean }, { principal: by }: { principal: Principal }) => {
					this.set(session, on, by);
					return null;
				},
			},
			release: () => {
				if (released) return;
				released = true;
				const person = held.people.get(principal.id);
				if (person && --person.count === 0) held.people.delete(principal.id);
				if (held.people.size === 0 && this.#open.get(session) === held) this.#open.delete(session);
				else this.#refresh(session);
			},
		};
	}

	/** The owner switches it; everyone sees the switch in the transcript. */
	set(session: string, on: boolean, by: Principal): void {
		if (this.#file.isOn(session) === on) return;
		this.#file.set(session, on);
		this.#ctx.services.get("conversationEntries")?.append(
			session,
			MAIN_CONVERSATION,
			{ type: SWITCH_ENTRY, data: { on } },
			{
				id: by.id,
				name: by.name,
				role: by.role,
			},
		);
		this.#refresh(session);
	}

	/** The quote of the entry a reply answers, or a refusal when there is no such message. */
	#quote(session: string, extra: PersonInput["extra"]): Quote | null | { refuse: string } {
		const seq = extra === undefined ? undefined : own(extra, REPLY_FIELD);
		if (seq === undefined || seq === null) return null;
		if (typeof seq !== "number" || !Number.isInteger(seq)) return { refuse: "a reply names the message it answers" };
		const held = this.#ctx.stores.hold(session);
		let entry: StoredEntry | undefined;
		try {
			entry = held.store.since(MAIN_CONVERSATION, seq - 1, 1).entries.find((e) => e.seq === seq);
		} finally {
			held.release();
		}
		const text = entry && entryText(entry);
		if (!entry || text === null || text === undefined) return { refuse: "the message this replies to is not here" };
		return { seq, author: entryAuthorLabel(entry).slice(0, 200), line: firstLine(text, MAX_QUOTE) };
	}

	input(session: string, input: PersonInput): InputDecision | undefined {
		if (!this.#file.isOn(session)) return undefined;
		const quote = this.#quote(session, input.extra);
		if (quote && "refuse" in quote) return quote;
		if (!mentionsAgent(input.text)) {
			if (input.files) return { refuse: "Files go to the agent: mention @pi to send them." };
			queueMicrotask(() => this.#refresh(session));
			const data: MessageData = { text: input.text, ...(quote ? { quote } : {}) };
			return { keep: { type: MESSAGE_ENTRY, data } };
		}
		// The chat since the agent last ran, as it is when the message reaches the agent: a mention sent while the
		// agent works waits, and the chat goes on meanwhile (and would then be before the next run's start).
		const context = () => {
			const chat = this.#sinceLastRun(session).map((entry) => ({
				author: authorName(entry),
				text: entryText(entry) ?? "",
			}));
			return chatContext(chat, input.author.name);
		};
		return {
			context,
			...(quote ? { lead: replyLine(quote.author, quote.line) } : {}),
		};
	}
}

export function chatModePlugin(): ServerPlugin {
	return {
		name: "chat-mode",
		register(ctx) {
			const mode = new ChatMode(ctx);
			ctx.agent.add({
				name: "chat-mode",
				input: (scope, input) =>
					scope.conversation === MAIN_CONVERSATION ? mode.input(scope.session, input) : undefined,
			});
			ctx.host.serve(chatModeContract, {
				open: ({ session }, { principal }) => mode.open(session, principal),
			});
		},
	};
}

import { type } from "../../protocol/ark.ts";
import { MAX_IMAGE_BASE64_CHARS } from "../../protocol/channel-kinds.ts";
import { Author, ConversationInput, ThinkingLevel, UsageTotals } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export { Author, ConversationInput as ChatInput, MAIN_CONVERSATION, ThinkingLevel } from "../../protocol/common.ts";
export const Usage = UsageTotals;
export type Usage = UsageTotals;

export const AssistantPart = lazy(() =>
	type({ type: "'text'", text: "string" }).or({
		type: "'thinking'",
		text: "string",
		redacted: "boolean",
	}),
);
export type AssistantPart = typeof AssistantPart.infer;

export const StopReason = lazy(() => type("'stop' | 'length' | 'toolUse' | 'error' | 'aborted'"));

/** An image in an entry, as the transcript shows it (its bytes come from `image`): its type, and its size if known. */
export const ImageFact = lazy(() =>
	type({ mimeType: "string <= 100", "width?": "number.integer >= 1", "height?": "number.integer >= 1" }),
);
export type ImageFact = typeof ImageFact.infer;
/** Images an entry shows at most. */
export const MAX_ENTRY_IMAGES = 16;

export const ToolResult = lazy(() =>
	type({
		text: "string",
		isError: "boolean",
		/** Tool-specific facts: bash `exitCode`, `truncated`, `fullOutputPath`; edit `diff`, `firstChangedLine`. */
		details: "Record<string, unknown> | null",
		/** Images the tool gave back (the read tool on a picture). */
		"images?": ImageFact.array().atMostLength(MAX_ENTRY_IMAGES),
	}),
);
export type ToolResult = typeof ToolResult.infer;

const EntryBase = { seq: "number.integer", at: "number" } as const;

/** A `!` command's record, as stored and as shown. */
export const SHELL_FIELDS = {
	id: "string",
	command: "string",
	output: "string",
	exitCode: "number | null",
	cancelled: "boolean",
	truncated: "boolean",
	includeInContext: "boolean",
} as const;

/** One committed transcript entry, as a client sees it. Tool calls arrive joined with their results. */
export const ChatEntry = lazy(() =>
	type({
		...EntryBase,
		kind: "'user'",
		text: "string",
		author: Author,
		images: "number.integer >= 0",
		/** The attached images, in order (the first `MAX_ENTRY_IMAGES`). */
		"imageFacts?": ImageFact.array().atMostLength(MAX_ENTRY_IMAGES),
		/** One line a plugin put above the message (chat mode's reply quote). */
		"lead?": "string <= 1024",
	})
		.or({
			...EntryBase,
			kind: "'assistant'",
			parts: AssistantPart.array(),
			/** Ids of the tool calls this answer made; their `tool` entries follow it. */
			toolCalls: "string[]",
			stopReason: StopReason,
			"error?": "string",
			provider: "string",
			model: "string",
			usage: Usage.or("null"),
		})
		.or({
			...EntryBase,
			kind: "'tool'",
			callId: "string",
			name: "string",
			args: "Record<string, unknown>",
			result: ToolResult,
			durationMs: "number | null",
		})
		.or({ ...EntryBase, kind: "'error'", message: "string" })
		/** What came before was summarized (/compact): the model sees the summary, then what follows it. */
		.or({
			...EntryBase,
			kind: "'compaction'",
			summary: "string",
			tokensBefore: "number",
			/** Entries before this seq (and before the compaction) were summarized; pi no longer shows them. */
			firstKeptSeq: "number",
		})
		/** A command the person ran (`!cmd`, or `!!cmd` left out of the model's context). */
		.or({ ...EntryBase, kind: "'shell'", ...SHELL_FIELDS, author: Author })
		/** A fresh context (/new-context): the model sees nothing before it but the handoff note, if any. */
		.or({ ...EntryBase, kind: "'reset'", handoff: "string | null" })
		.or({ ...EntryBase, kind: "'interrupted'", message: "string" })
		/** A plugin's entry (`type` is `<plugin>.<name>`, e.g. a chat-mode message): its renderer draws `data`. */
		.or({
			...EntryBase,
			kind: "'plugin'",
			type: "/^[a-z][a-z0-9-]*\\.[a-z][a-z0-9-]*$/",
			author: Author.or("null"),
			data: "Record<string, unknown>",
		}),
);
export type ChatEntry = typeof ChatEntry.infer;

export const LiveTool = lazy(() =>
	type({
		id: "string",
		name: "string",
		args: "Record<string, unknown>",
		output: "string",
		startedAt: "number",
	}),
);
export type LiveTool = typeof LiveTool.infer;

export const Retry = lazy(() =>
	type({
		attempt: "number.integer",
		maxAttempts: "number.integer",
		until: "number",
		error: "string",
	}),
);

/** What is happening right now in the conversation; `null` when idle. */
export const Live = lazy(() =>
	type({
		runId: "string",
		startedAt: "number",
		/** The answer being streamed; its text grows by appends. */
		message: type({ parts: AssistantPart.array(), toolCalls: "string[]" }).or("null"),
		tools: LiveTool.array(),
		retry: Retry.or("null"),
	}).or("null"),
);
export type Live = typeof Live.infer;

export const QueueMode = lazy(() => type("'steer' | 'followUp'"));
export type QueueMode = typeof QueueMode.infer;

export const QueuedInput = lazy(() =>
	type({
		id: "string",
		mode: QueueMode,
		text: "string",
		author: Author,
		at: "number",
		/** Approval mode: a guest's message the owner has not accepted yet. */
		waiting: "boolean",
	}),
);
export type QueuedInput = typeof QueuedInput.infer;

/** Queued texts taken back by someone else's stop, waiting for their author's client to restore them. */
export const Returned = lazy(() => type({ id: "string", authorId: "string", texts: "string[]", at: "number" }));

/** Guest-safe facts about the conversation's model: enough for the footer, nothing of the owner's catalog. */
export const ModelState = lazy(() =>
	type({
		provider: "string",
		id: "string",
		name: "string",
		contextWindow: "number",
		reasoning: "boolean",
		thinkingLevels: ThinkingLevel.array(),
	}).or("null"),
);
export type ModelState = typeof ModelState.infer;

export const ChatState = lazy(() =>
	type({
		/** The most recent committed entries; older ones come from `page`. */
		entries: ChatEntry.array(),
		/** True when entries before `entries[0]` exist. */
		older: "boolean",
		live: Live,
		queue: QueuedInput.array(),
		returned: Returned.array(),
		model: ModelState,
		thinkingLevel: ThinkingLevel,
		/** A compaction in progress (`threshold`: the context is nearly full; `overflow`: it overflowed); null otherwise. */
		compacting: type({ startedAt: "number", reason: "'manual' | 'threshold' | 'overflow'" }).or("null"),
		/** A person's `!` command while it runs, or until its entry is placed; its output grows by appends. */
		shell: type({
			id: "string",
			command: "string",
			author: Author,
			includeInContext: "boolean",
			output: "string",
			startedAt: "number",
			/** It ended while the agent works: its entry waits for the run's next boundary (pi's pending area). */
			"ended?": type({ exitCode: "number | null", cancelled: "boolean" }),
		}).or("null"),
		/** The session's directory, when it no longer exists on the server (deleted or moved). */
		"directoryGone?": "string",
		/** The context files (AGENTS.md…) the model's instructions include, as paths on the server (pi's [Context]). */
		"contextFiles?": type("string <= 4096").array().atMostLength(64),
	}),
);
export type ChatState = typeof ChatState.infer;

export const MAX_TEXT = 256 * 1024;

export { AGENT_AUTHOR_ID } from "../../protocol/author-label.ts";

const RequestId = lazy(() => type("/^[A-Za-z0-9_-]{8,64}$/"));

export const SendArgs = lazy(() =>
	type({
		/** May be empty when files are attached. */
		text: `string <= ${MAX_TEXT}`,
		/** Files uploaded for this message (`/upload`), by the same person, to this session. */
		"attachments?": type("string <= 64").array().atMostLength(10),
		/** `steer` (Enter) is delivered at the next tool boundary while busy; `followUp` (Alt+Enter) after the run. */
		mode: QueueMode,
		/** Chosen by the client; a retried send with the same id runs once. */
		requestId: RequestId,
		/** Fields for the server plugins' say in the message (chat mode's `replyTo`); each plugin checks its own. */
		"extra?": "Record<string, string | number | boolean | null>",
	}),
);
/** `kept`: a plugin kept the message as its own entry (a chat-mode message), and the agent does not run. */
export const SendResult = lazy(() => type({ status: "'started' | 'queued' | 'duplicate' | 'kept'" }));

export const StopResult = lazy(() => type({ stopped: "boolean", texts: "string[]" }));
export const DequeueArgs = lazy(() => type({ id: "string" }));
export const QueuedIdArgs = DequeueArgs;
export const DequeueResult = lazy(() => type({ text: "string | null" }));
export const DequeueOwnResult = lazy(() => type({ restored: "string[]", skipped: "number.integer" }));
export const ConfigureArgs = lazy(() =>
	type({ "model?": { provider: "string", id: "string" }, "thinkingLevel?": ThinkingLevel }),
);
export const PageArgs = lazy(() => type({ beforeSeq: "number.integer", limit: "1 <= number.integer <= 200" }));
export const PageResult = lazy(() => type({ entries: ChatEntry.array(), more: "boolean" }));
export const AckReturnedArgs = lazy(() => type({ id: "string" }));
export const CompactArgs = lazy(() => type({ "instructions?": "string <= 8000" }));
export const CompactResult = lazy(() => type({ tokensBefore: "number", aborted: "boolean" }));
export const NewContextArgs = lazy(() => type({ "handoff?": `string <= ${MAX_TEXT}` }));
export const ForkArgs = lazy(() => type({ "beforeSeq?": "number.integer", "cwd?": "0 < string <= 4096" }));
export const ForkResult = lazy(() => type({ session: "string" }));
export const ShellArgs = lazy(() =>
	type({
		command: "0 < string <= 8192",
		includeInContext: "boolean",
		/** Chosen by the client; a retried command with the same id runs once (the retry gets its outcome). */
		requestId: RequestId,
	}),
);
export const ShellResult = lazy(() => type({ exitCode: "number | null", cancelled: "boolean" }));
export const SessionFile = lazy(() =>
	type({
		id: "string",
		name: "string",
		size: "number",
		mimeType: "string",
		at: "number",
		/** The agent sent it (its send_file tool), not a person. */
		"agent?": "boolean",
	}),
);
export type SessionFile = typeof SessionFile.infer;
export const FilesResult = lazy(() => type({ files: SessionFile.array() }));
/** A preview of a sent file shows at most this much text. */
export const MAX_PREVIEW_CHARS = 256 * 1024;
export const PreviewArgs = lazy(() => type({ id: "string <= 64" }));
/** One image of an entry (a user's attachment, a tool's result) by its place. */
export const ImageArgs = lazy(() =>
	type({ seq: "number.integer >= 0", index: `0 <= number.integer < ${MAX_ENTRY_IMAGES}` }),
);
/** The image as a PNG for the terminal: at most what the launcher takes. */
export const ImageResult = lazy(() => type({ png: `string <= ${MAX_IMAGE_BASE64_CHARS}` }));
export const PreviewResult = lazy(() => type({ text: `string <= ${MAX_PREVIEW_CHARS} | null`, truncated: "boolean" }));

const participantMethods = [
	"send",
	"stop",
	"dequeue",
	"dequeueOwn",
	"page",
	"ackReturned",
	"files",
	"preview",
	"image",
	"compact",
	"shell",
] as const;
const ownerMethods = [...participantMethods, "configure", "approve", "reject", "newContext", "fork"] as const;

export const chatContract = defineContract({
	name: "chat",
	version: 1,
	input: ConversationInput,
	methods: {
		send: method(SendArgs, SendResult),
		stop: method(type("null | undefined"), StopResult),
		dequeue: method(DequeueArgs, DequeueResult),
		dequeueOwn: method(type("null | undefined"), DequeueOwnResult),
		configure: method(ConfigureArgs, ModelState),
		page: method(PageArgs, PageResult),
		ackReturned: method(AckReturnedArgs, type("null")),
		/** Approval mode (the owner): a waiting guest message is accepted, or sent back to its author. */
		approve: method(QueuedIdArgs, type("null")),
		reject: method(QueuedIdArgs, type("null")),
		/** The files sent to this session (`/upload`), newest first, for /download. */
		files: method(type("null | undefined"), FilesResult),
		/** The start of one of them as text for /download's preview; null for a binary file (the worker has no cookie). */
		preview: method(PreviewArgs, PreviewResult),
		/** An image of an entry as a PNG no larger than the launcher draws (the transcript shows it inline). */
		image: method(ImageArgs, ImageResult),
		/** pi's /compact: what came before is summarized by the model; Escape (stop) cancels it. */
		compact: method(CompactArgs, CompactResult),
		/**
		 * pi's `!cmd` (`includeInContext`) and `!!cmd`: a command in the session's directory; Escape (stop) cancels
		 * it. While the agent works it runs too, and its entry is placed at the run's next boundary.
		 */
		shell: method(ShellArgs, ShellResult),
		/**
		 * pi's /fork and /clone: a new session (its child) with this conversation's entries before `beforeSeq`, a
		 * user message (all of them without it). The new session's catalog row is published as for any session.
		 */
		fork: method(ForkArgs, ForkResult),
		/** A fresh context for the model from here on (the transcript stays), with an optional handoff note. */
		newContext: method(NewContextArgs, type("null")),
	},
	variants: {
		deviceOwner: { state: ChatState, methods: ownerMethods },
		owner: { state: ChatState, methods: ownerMethods },
		full: { state: ChatState, methods: participantMethods },
		view: { state: ChatState, methods: ["page", "files", "preview", "image"] },
	},
});

import {
	Agent,
	type AgentEvent,
	type AgentMessage,
	type AgentTool,
	type StreamFn,
} from "@earendil-works/pi-agent-core";
import {
	type Api,
	type AssistantMessage,
	isContextOverflow,
	isRetryableAssistantError,
	type Model,
	type RetryPolicy,
	retryDelayMs,
	type ToolResultMessage,
	type UserMessage,
} from "@earendil-works/pi-ai";
import type { ThinkingLevel } from "../../protocol/common.ts";

/** What a run reports as it goes, already reduced to what a transcript needs. */
export type EngineEvent =
	| { type: "assistant_start" }
	| { type: "part_start"; index: number; kind: "text" | "thinking" }
	| { type: "part_delta"; index: number; delta: string }
	| { type: "tool_call"; id: string }
	/** `retrying`: a transient error that will be retried; it is not part of the transcript. */
	| { type: "assistant_end"; message: AssistantMessage; retrying: boolean }
	/** A queued steering or follow-up message reached the model. */
	| { type: "user_delivered"; message: UserMessage }
	| { type: "tool_start"; id: string; name: string; args: Record<string, unknown> }
	/** `output` is the tool's whole visible output so far (bash keeps a tail), not a delta. */
	| { type: "tool_update"; id: string; output: string }
	| {
			type: "tool_end";
			id: string;
			name: string;
			args: Record<string, unknown>;
			result: ToolResultMessage;
			durationMs: number | null;
	  }
	| { type: "retry_scheduled"; attempt: number; maxAttempts: number; delayMs: number; error: string }
	| { type: "retry_cleared" }
	/** The run ended after `attempts` retries without an answer: the last error, or "Retry cancelled" (pi). */
	| { type: "retry_failed"; attempts: number; error: string };

export type RunOutcome = "done" | "aborted" | "error";

export interface EngineOptions {
	readonly model: Model<Api>;
	readonly thinkingLevel: ThinkingLevel;
	readonly systemPrompt: string;
	readonly tools: AgentTool[];
	readonly history: AgentMessage[];
	readonly streamFn: StreamFn;
	readonly retry: RetryPolicy;
	readonly sessionId: string;
	readonly onEvent: (event: EngineEvent) => void;
	/**
	 * Runs once before the first run starts and may give the system prompt to use instead (e.g. with the project
	 * instructions of a remote machine, read there); what it throws is reported and the run goes on.
	 */
	readonly prepare?: () => Promise<string | undefined>;
}

function plainArgs(args: unknown): Record<string, unknown> {
	return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function textOfTool(partial: unknown): string {
	const content = (partial as { content?: unknown } | null)?.content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((c): c is { type: "text"; text: string } => c?.type === "text" && typeof c.text === "string")
		.map((c) => c.text)
		.join("\n");
}

/**
 * One conversation's agent: pi-agent-core's loop with pi's steering, follow-up, abort and automatic retry of
 * transient provider errors. It knows nothing of storage or clients; it reports events.
 */
export class ConversationEngine {
	#agent: Agent;
	#options: EngineOptions;
	#retryAbort: AbortController | null = null;
	#aborted = false;
	#running = false;
	#lastAssistant: AssistantMessage | null = null;
	#pendingRetry = false;
	#attempt = 0;
	#toolStarted = new Map<string, { at: number; args: Record<string, unknown> }>();
	#prepare: (() => Promise<string | undefined>) | undefined;
	/** Steering and follow-ups given while the agent is being prepared: the agent made after takes them. */
	#held: { steering: UserMessage[]; followUps: UserMessage[] } | undefined;

	constructor(options: EngineOptions) {
		this.#options = options;
		this.#prepare = options.prepare;
		this.#agent = this.#build(options.systemPrompt, options.model, options.thinkingLevel);
	}

	#build(systemPrompt: string, model: Model<Api>, thinkingLevel: ThinkingLevel): Agent {
		const options = this.#options;
		const agent = new Agent({
			initialState: { systemPrompt, model, thinkingLevel, tools: options.tools, messages: options.history },
			streamFn: options.streamFn,
			sessionId: options.sessionId,
		});
		agent.subscribe((event) => this.#onAgentEvent(event));
		return agent;
	}

	get running(): boolean {
		return this.#running;
	}

	setModel(model: Model<Api>, thinkingLevel: ThinkingLevel): void {
		this.#agent.state.model = model;
		this.#agent.state.thinkingLevel = thinkingLevel;
	}

	/** Runs the conversation from `input` until the agent stops, retrying transient errors; never throws. */
	run(input: UserMessage): Promise<RunOutcome> {
		return this.#drive(() => this.#agent.prompt(input));
	}

	/** Goes on from the history as it stands (its last message is the person's), e.g. after a compaction. */
	continueRun(): Promise<RunOutcome> {
		return this.#drive(() => this.#agent.continue());
	}

	async #drive(start: () => Promise<void>): Promise<RunOutcome> {
		if (this.#running) throw new Error("a run is already in progress");
		this.#running = true;
		this.#aborted = false;
		this.#attempt = 0;
		// Typed wide on purpose: the agent's events set it while `start` runs.
		this.#lastAssistant = null as AssistantMessage | null;
		try {
			const prepare = this.#prepare;
			this.#prepare = undefined;
			if (prepare) {
				this.#held = { steering: [], followUps: [] };
				let prompt: string | undefined;
				let held: { steering: UserMessage[]; followUps: UserMessage[] };
				try {
					prompt = await prepare().catch((error) => {
						console.error("preparing the agent failed:", error);
						return undefined;
					});
				} finally {
					held = this.#held ?? { steering: [], followUps: [] };
					this.#held = undefined;
				}
				// Nothing has run yet: the agent is made again with the prompt (it leads the transcript).
				if (prompt !== undefined)
					this.#agent = this.#build(prompt, this.#agent.state.model, this.#agent.state.thinkingLevel);
				// An Escape while it was prepared ends the run before it starts; what was queued meanwhile is kept.
				if (this.#aborted) return this.#cancelled();
				if (held.steering.length || held.followUps.length) this.requeue(held.steering, held.followUps);
			}
			await start();
			for (;;) {
				if (this.#aborted) return this.#cancelled();
				if (!this.#pendingRetry) break;
				this.#pendingRetry = false;
				const failed = this.#lastAssistant;
				// The failed attempt is not part of the conversation the model sees next.
				const messages = this.#agent.state.messages;
				if (failed && messages[messages.length - 1] === failed) this.#agent.state.messages = messages.slice(0, -1);
				const delayMs = retryDelayMs(this.#options.retry, this.#attempt);
				this.#options.onEvent({
					type: "retry_scheduled",
					attempt: this.#attempt,
					maxAttempts: this.#options.retry.maxRetries,
					delayMs,
					error: failed?.errorMessage ?? "Unknown error",
				});
				const waited = await this.#sleep(delayMs);
				this.#options.onEvent({ type: "retry_cleared" });
				if (!waited || this.#aborted) return this.#cancelled();
				await this.#agent.continue();
			}
			const last = this.#lastAssistant;
			if (last?.stopReason === "aborted" || this.#aborted) return this.#cancelled();
			if (last?.stopReason === "error") {
				this.#retryFailed(last.errorMessage || "Unknown error");
				return "error";
			}
			return "done";
		} catch (error) {
			console.error("agent run failed:", error);
			return "error";
		} finally {
			this.#running = false;
			this.#retryAbort = null;
		}
	}

	/** pi says when retrying ended without an answer: after how many retries, and why. */
	#retryFailed(error: string): void {
		if (this.#attempt === 0) return;
		this.#options.onEvent({ type: "retry_failed", attempts: this.#attempt, error });
		this.#attempt = 0;
	}

	#cancelled(): RunOutcome {
		this.#retryFailed("Retry cancelled");
		return "aborted";
	}

	/** Delivered at the next tool boundary of the current run (pi's Enter while busy). */
	steer(message: UserMessage): void {
		if (this.#held) this.#held.steering.push(message);
		else this.#agent.steer(message);
	}

	/** Delivered when the run would otherwise end (pi's Alt+Enter). */
	followUp(message: UserMessage): void {
		if (this.#held) this.#held.followUps.push(message);
		else this.#agent.followUp(message);
	}

	/** Replaces what is still waiting, e.g. after one queued input was taken back. */
	requeue(steering: readonly UserMessage[], followUps: readonly UserMessage[]): void {
		if (this.#held) {
			this.#held = { steering: [...steering], followUps: [...followUps] };
			return;
		}
		this.#agent.clearAllQueues();
		for (const m of steering) this.#agent.steer(m);
		for (const m of followUps) this.#agent.followUp(m);
	}

	abort(): void {
		this.#aborted = true;
		if (this.#held) this.#held = { steering: [], followUps: [] };
		this.#agent.clearAllQueues();
		this.#retryAbort?.abort();
		this.#agent.abort();
	}

	async idle(): Promise<void> {
		await this.#agent.waitForIdle();
	}

	#sleep(ms: number): Promise<boolean> {
		const controller = new AbortController();
		this.#retryAbort = controller;
		return new Promise((resolve) => {
			const timer = setTimeout(() => resolve(true), ms);
			controller.signal.addEventListener("abort", () => {
				clearTimeout(timer);
				resolve(false);
			});
		});
	}

	#mayRetry(message: AssistantMessage): boolean {
		const policy = this.#options.retry;
		if (!policy.enabled || this.#aborted) return false;
		if (message.stopReason !== "error" || !isRetryableAssistantError(message)) return false;
		// An overflow is not transient: trying the same context again cannot help (the conversation compacts).
		if (isContextOverflow(message, this.#agent.state.model.contextWindow || undefined)) return false;
		if (this.#attempt >= policy.maxRetries) return false;
		this.#attempt++;
		return true;
	}

	#onAgentEvent(event: AgentEvent): void {
		const emit = this.#options.onEvent;
		switch (event.type) {
			case "message_start":
				if (event.message.role === "assistant") emit({ type: "assistant_start" });
				return;
			case "message_update": {
				const e = event.assistantMessageEvent;
				if (e.type === "text_start") emit({ type: "part_start", index: e.contentIndex, kind: "text" });
				else if (e.type === "thinking_start") emit({ type: "part_start", index: e.contentIndex, kind: "thinking" });
				else if (e.type === "text_delta" || e.type === "thinking_delta") {
					emit({ type: "part_delta", index: e.contentIndex, delta: e.delta });
				} else if (e.type === "toolcall_end") emit({ type: "tool_call", id: e.toolCall.id });
				return;
			}
			case "message_end": {
				const message = event.message;
				if (message.role === "assistant") {
					this.#lastAssistant = message;
					const retrying = this.#mayRetry(message);
					if (retrying) this.#pendingRetry = true;
					else if (message.stopReason !== "error") this.#attempt = 0;
					emit({ type: "assistant_end", message, retrying });
				} else if (message.role === "user") {
					emit({ type: "user_delivered", message });
				}
				return;
			}
			case "tool_execution_start":
				this.#toolStarted.set(event.toolCallId, { at: performance.now(), args: plainArgs(event.args) });
				emit({ type: "tool_start", id: event.toolCallId, name: event.toolName, args: plainArgs(event.args) });
				return;
			case "tool_execution_update":
				emit({ type: "tool_update", id: event.toolCallId, output: textOfTool(event.partialResult) });
				return;
			case "tool_execution_end": {
				const started = this.#toolStarted.get(event.toolCallId);
				this.#toolStarted.delete(event.toolCallId);
				const r = event.result as { content?: ToolResultMessage["content"]; details?: unknown } | undefined;
				const result = {
					role: "toolResult",
					toolCallId: event.toolCallId,
					toolName: event.toolName,
					content: Array.isArray(r?.content) ? r.content : [],
					details: r?.details,
					isError: event.isError,
					timestamp: Date.now(),
				} as ToolResultMessage;
				emit({
					type: "tool_end",
					id: event.toolCallId,
					name: event.toolName,
					args: started?.args ?? {},
					result,
					durationMs: event.durationMs ?? (started === undefined ? null : Math.round(performance.now() - started.at)),
				});
				return;
			}
		}
	}
}

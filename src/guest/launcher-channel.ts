/**
 * The UI's side of the launcher: requests it asks the person about (typed from the channel's own schema),
 * the launcher's questions (the text to copy, the editor's text), what its own keys brought (the external
 * editor's text, a pasted file), how those keys went, and when the UI's own text input needs every key.
 */
import type { GuestHost, LauncherMessage, WorkerMessage } from "../protocol/channel.ts";
import { MAX_COPY_CHARS } from "../protocol/channel-kinds.ts";
import type { NoticeTone } from "./layout.ts";

type RequestMessage = Extract<WorkerMessage, { kind: "request" }>;
/** What the UI may ask the launcher to do, on its own consent screen. */
export type LauncherAction = RequestMessage["action"];
export type LauncherPayload<A extends LauncherAction> = Extract<RequestMessage, { action: A }>["payload"];
/** The launcher's answer to a request: done, or refused with the reason it chose to share. */
export type LauncherAnswer = Omit<Extract<LauncherMessage, { kind: "response" }>, "kind" | "id">;

type AskMessage = Extract<LauncherMessage, { kind: "ask" }>;
export type LauncherQuestion = AskMessage["question"];
/** What the launcher's own keys bring to the UI. */
export type LauncherDelivery = Extract<LauncherMessage, { kind: "editorResult" | "attached" }>;

/** What a plugin sees of the launcher. */
export interface Launcher {
	request<A extends LauncherAction>(action: A, payload: LauncherPayload<A>): Promise<LauncherAnswer>;
	/** Answers one of the launcher's questions (the latest provider answers; none answers null). */
	answer(question: LauncherQuestion, provide: () => string | null): () => void;
	on<K extends LauncherDelivery["kind"]>(
		kind: K,
		listener: (message: Extract<LauncherDelivery, { kind: K }>) => void,
	): () => void;
}

export class LauncherChannel implements Launcher {
	readonly #host: GuestHost;
	readonly #notice: (text: string, tone: NoticeTone) => void;
	readonly #requests = new Map<string, (answer: LauncherAnswer) => void>();
	readonly #answers = new Map<LauncherQuestion, (() => string | null)[]>();
	readonly #listeners = new Set<(message: LauncherDelivery) => void>();
	#requestCount = 0;
	#suspended = false;

	constructor(host: GuestHost, notice: (text: string, tone: NoticeTone) => void) {
		this.#host = host;
		this.#notice = notice;
	}

	request<A extends LauncherAction>(action: A, payload: LauncherPayload<A>): Promise<LauncherAnswer> {
		const id = `r${++this.#requestCount}`;
		return new Promise((resolve) => {
			this.#requests.set(id, resolve);
			// Each action's payload is checked against the schema by the launcher; TypeScript cannot pair them here.
			this.#host.post({ kind: "request", id, action, payload } as RequestMessage);
		});
	}

	answer(question: LauncherQuestion, provide: () => string | null): () => void {
		const providers = this.#answers.get(question) ?? [];
		this.#answers.set(question, [...providers, provide]);
		return () =>
			this.#answers.set(
				question,
				(this.#answers.get(question) ?? []).filter((p) => p !== provide),
			);
	}

	on<K extends LauncherDelivery["kind"]>(
		kind: K,
		listener: (message: Extract<LauncherDelivery, { kind: K }>) => void,
	): () => void {
		const filtered = (message: LauncherDelivery) => {
			if (message.kind === kind) listener(message as Extract<LauncherDelivery, { kind: K }>);
		};
		this.#listeners.add(filtered);
		return () => this.#listeners.delete(filtered);
	}

	/** The launcher's messages this part handles; false for the others. */
	handle(message: LauncherMessage): boolean {
		switch (message.kind) {
			case "response": {
				const resolve = this.#requests.get(message.id);
				this.#requests.delete(message.id);
				resolve?.({
					ok: message.ok,
					...(message.error ? { error: message.error } : {}),
					...(message.attached ? { attached: message.attached } : {}),
					...(message.forwarded ? { forwarded: message.forwarded } : {}),
				});
				return true;
			}
			case "ask": {
				const text = this.#answers.get(message.question)?.at(-1)?.() ?? null;
				this.#host.post({ kind: "answer", id: message.id, text: text === null ? null : text.slice(0, MAX_COPY_CHARS) });
				return true;
			}
			case "editorResult":
			case "attached":
				for (const listener of [...this.#listeners]) listener(message);
				return true;
			case "actionDone":
				if (message.detail) this.#notice(message.detail, message.ok ? "status" : "warning");
				return true;
			default:
				return false;
		}
	}

	/** While a selector, a dialog or pi-tui's search has the keys, the launcher leaves its own keys to them. */
	setKeyContext(suspendPrivileged: boolean): void {
		if (suspendPrivileged === this.#suspended) return;
		this.#suspended = suspendPrivileged;
		this.#host.post({ kind: "keyContext", suspendPrivileged });
	}
}

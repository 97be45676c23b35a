/**
 * What the launcher does for the UI (design: launcher actions): actions on the person's own keys ("K": copy the last
 * answer, the external editor, paste, attach, suspend) and actions the UI asks for and the person confirms on
 * the launcher's own screen ("C": copy a text, save preferences, open an address, download, attach, sign out).
 * Results go back only to the worker that asked, and only while it is still the one on screen. No request can
 * take the launcher down: whatever goes wrong is answered `failed`, the detail kept in the launcher's log.
 */
import type { WorkerMessage } from "../protocol/channel.ts";
import { LAUNCHER_KEY_ACTIONS, type LauncherKeyAction } from "../protocol/keybindings.ts";
import { forbiddenKeyIn } from "../protocol/own-keys.ts";
import { attachRequest } from "./actions/attach.ts";
import {
	type ActionContext,
	type ActionsHost,
	type Answer,
	CANCELLED,
	DECLINED,
	errorText,
	FAILED,
} from "./actions/context.ts";
import { copyRequest, copySelection } from "./actions/copy.ts";
import { downloadRequest } from "./actions/download.ts";
import { editExternally } from "./actions/external-editor.ts";
import { forwardRequest } from "./actions/forward.ts";
import { attachPicked, copyLastAnswer, suspend } from "./actions/keys.ts";
import { openUrlRequest } from "./actions/open-url.ts";
import { paste } from "./actions/paste.ts";
import { savePrefsRequest } from "./actions/save-prefs.ts";
import { signOutRequest } from "./actions/sign-out.ts";

export type { ActionsHost } from "./actions/context.ts";
export { splitCommand } from "./actions/external-editor.ts";
export { externalUrl } from "./actions/open-url.ts";

/** The launcher's own keys this launcher has actions for. */
export const KEY_ACTIONS = LAUNCHER_KEY_ACTIONS;
export type KeyAction = LauncherKeyAction;

type Request = Extract<WorkerMessage, { kind: "request" }>;
type RequestAction = Request["action"];

/** After a "no", the same worker's next request for that action waits this long before it is shown. */
export const AFTER_NO_MS = 3000;

const KEY_HANDLERS: { readonly [A in KeyAction]: <W>(ctx: ActionContext<W>) => Promise<void> } = {
	"app.message.copy": copyLastAnswer,
	"app.editor.external": editExternally,
	"app.suspend": suspend,
	"app.clipboard.pasteImage": paste,
	"p2.attach": attachPicked,
};

function dispatch<W>(ctx: ActionContext<W>, message: Request): Promise<Answer> {
	switch (message.action) {
		case "savePrefs":
			return savePrefsRequest(ctx, message.payload);
		case "copy":
			return copyRequest(ctx, message.payload);
		case "openUrl":
			return openUrlRequest(ctx, message.payload);
		case "download":
			return downloadRequest(ctx, message.payload);
		case "attach":
			return attachRequest(ctx, message.payload);
		case "signOut":
			return signOutRequest(ctx, message.payload);
		case "forward":
			return forwardRequest(ctx, message.payload);
		case "copy.selection":
			return copySelection(ctx.host, message.payload);
	}
}

export function createLauncherActions<W extends object>(host: ActionsHost<W>) {
	/** One action at a time: a question, a lent terminal, an upload. */
	let busy = false;
	/** Actions the person chose to refuse until p2 exits ("d" on the question). */
	const refusedForRun = new Set<RequestAction>();
	/** When each worker last heard "no" for each action. */
	const lastNo = new WeakMap<W, Map<RequestAction, number>>();

	const context = (worker: W, action?: RequestAction): ActionContext<W> => ({
		host,
		worker,
		ask: async (request, session) => {
			const answer = await host.consent.confirm({ origin: host.origin(), ...request });
			host.redraw();
			if (action && (answer === "no" || answer === "never")) {
				const times = lastNo.get(worker) ?? new Map<RequestAction, number>();
				times.set(action, host.clock.now());
				lastNo.set(worker, times);
				if (answer === "never") refusedForRun.add(action);
			}
			if (answer === "withdrawn" || !host.current(worker)) return "cancelled";
			if (session !== undefined && host.session(worker) !== session) return "cancelled";
			return answer === "yes" ? "yes" : "declined";
		},
		notice: async (title, lines) => {
			await host.consent.notify({ title, lines });
			host.redraw();
		},
	});

	/** A worker that asks again at once after a "no" waits: a loop of questions cannot trap the person. */
	const afterNo = (worker: W, action: RequestAction): Promise<void> => {
		const at = lastNo.get(worker)?.get(action);
		const wait = at === undefined ? 0 : at + AFTER_NO_MS - host.clock.now();
		if (wait <= 0) return Promise.resolve();
		return new Promise((resolve) => host.clock.setTimeout(resolve, wait));
	};

	/** A key the launcher took from raw input. */
	const onKey = async (worker: W, action: KeyAction): Promise<void> => {
		if (busy || host.consent.active) return;
		busy = true;
		try {
			await KEY_HANDLERS[action](context(worker));
		} catch (error) {
			host.problem(`${action}: ${errorText(error)}`);
		} finally {
			busy = false;
		}
	};

	/** A request from the worker: refused, or shown on the launcher's screen and done on consent. */
	const onRequest = async (worker: W, message: Request): Promise<void> => {
		const reply = (answer: Answer) => host.post(worker, { kind: "response", id: message.id, ...answer });
		try {
			const forbidden = forbiddenKeyIn(message.payload);
			if (forbidden) return reply({ ok: false, error: `the key ${JSON.stringify(forbidden)} is not allowed` });
			// No screen: the person's own gesture is the consent.
			if (message.action === "copy.selection") return reply(await copySelection(host, message.payload));
			if (refusedForRun.has(message.action)) return reply(DECLINED);
			if (busy || host.consent.active) return reply({ ok: false, error: "another question is open" });
			busy = true;
			try {
				// A request is for the session on screen when it was made; moving on while it waits withdraws it.
				const session = host.session(worker);
				await afterNo(worker, message.action);
				if (!host.current(worker) || host.session(worker) !== session) return reply(CANCELLED);
				if (refusedForRun.has(message.action)) return reply(DECLINED);
				reply(await dispatch(context(worker, message.action), message));
			} finally {
				busy = false;
			}
		} catch (error) {
			host.problem(`${message.action}: ${errorText(error)}`);
			reply(FAILED);
		}
	};

	return { onKey, onRequest };
}

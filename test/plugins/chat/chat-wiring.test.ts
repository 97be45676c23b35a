/**
 * The chat's parts are wired one way (issue 37): the actions call whatever conversation is shown, and carry
 * what plugins add to a message; the `conversation` service is made of the parts, never of closures over
 * objects built later.
 */
import { describe, expect, test } from "bun:test";
import type { ChatState } from "../../../src/plugins/chat/contract.ts";
import { ChatActions } from "../../../src/plugins/chat/tui/actions.ts";
import { conversationService } from "../../../src/plugins/chat/tui/conversation-service.ts";
import { type ChatRef, ShownChat } from "../../../src/plugins/chat/tui/shown-chat.ts";

/** A chat object that records the calls made on it. */
function fakeChat(state?: Partial<ChatState>) {
	const calls: { method: string; args: unknown }[] = [];
	const ref = {
		ready: Promise.resolve(),
		state,
		async call(method: string, args: unknown) {
			calls.push({ method, args });
			if (method === "page") return { entries: [], more: true };
			return {};
		},
		close() {},
	};
	return { ref: ref as unknown as ChatRef, calls };
}

function actionsOn(shown: ShownChat) {
	const notices: string[] = [];
	let editor = "";
	const actions = new ChatActions({
		ui: {
			notice: (text) => void notices.push(text),
			fail: (error) => void notices.push(String(error)),
			editorText: () => editor,
			setEditorText: (text) => {
				editor = text;
			},
		},
		session: { identity: { role: "owner", id: "me", name: "me", session: "s1" }, role: "owner" },
		shown,
	});
	return { actions, notices, editor: () => editor };
}

describe("the chat's parts, wired one way", () => {
	test("the actions call the conversation shown now, and none before one is", async () => {
		const shown = new ShownChat();
		const { actions } = actionsOn(shown);
		expect(await actions.loadOlder(10)).toEqual({ entries: [], more: false });
		await expect(actions.send("hi", "steer", [])).rejects.toThrow("No session is open yet.");

		const first = fakeChat();
		shown.show(first.ref);
		expect(await actions.loadOlder(10)).toEqual({ entries: [], more: true });
		expect(first.calls).toEqual([{ method: "page", args: { beforeSeq: 10, limit: 100 } }]);

		const second = fakeChat();
		shown.show(second.ref);
		await actions.send("hi", "steer", []);
		expect(second.calls.map((c) => c.method)).toEqual(["send"]);
		expect(first.calls).toHaveLength(1);
	});

	test("a message carries what plugins add to it, asked as it is sent; a removed provider adds nothing", async () => {
		const shown = new ShownChat();
		const chat = fakeChat();
		shown.show(chat.ref);
		const { actions } = actionsOn(shown);
		let reply: string | undefined = "m1";
		const offReply = actions.addSendExtra(() => (reply ? { replyTo: reply } : undefined));
		actions.addSendExtra(() => ({ mention: true }));
		await actions.send("one", "steer", []);
		reply = undefined;
		await actions.send("two", "followUp", ["f1"]);
		offReply();
		reply = "m2";
		await actions.send("three", "steer", []);
		const sent = chat.calls.map((c) => c.args as { text: string; extra?: unknown; attachments?: unknown });
		expect(sent.map((s) => [s.text, s.extra, s.attachments])).toEqual([
			["one", { replyTo: "m1", mention: true }, undefined],
			["two", { mention: true }, ["f1"]],
			["three", { mention: true }, undefined],
		]);
	});

	test("texts sent back to this person go into the editor when the shown conversation's state says so", () => {
		const shown = new ShownChat();
		const { actions, editor, notices } = actionsOn(shown);
		shown.onChange((chat, state) => actions.takeReturned(chat, state));
		const state = { returned: [{ id: "r1", authorId: "me", texts: ["queued words"] }] } as unknown as ChatState;
		const chat = fakeChat(state);
		shown.show(chat.ref);
		shown.changed(chat.ref, state);
		expect(editor()).toBe("queued words");
		expect(notices).toEqual(["Your queued message came back to the editor"]);
		expect(chat.calls).toEqual([{ method: "ackReturned", args: { id: "r1" } }]);
	});

	test("the `conversation` service follows the shown object and hands extras to the actions", async () => {
		const shown = new ShownChat();
		const { actions } = actionsOn(shown);
		const navigated: string[] = [];
		const service = conversationService({
			objects: { open: () => fakeChat().ref as never },
			shown,
			conversation: {
				current: "main",
				navigate: (id) => void navigated.push(id),
				onNavigate: () => () => {},
			},
			actions,
			screen: { entries: [], scrolledAway: () => false, onScroll: () => () => {} },
		});
		expect(service.ref).toBeUndefined();
		const chat = fakeChat({ directoryGone: "/gone" });
		shown.show(chat.ref);
		expect(service.ref).toBe(chat.ref);
		expect(service.goneDirectory()).toBe("/gone");
		service.addSendExtra(() => ({ replyTo: "m9" }));
		await actions.send("hi", "steer", []);
		expect(chat.calls[0]?.args).toMatchObject({ extra: { replyTo: "m9" } });
		service.navigate("agent-1");
		expect(navigated).toEqual(["agent-1"]);
	});
});

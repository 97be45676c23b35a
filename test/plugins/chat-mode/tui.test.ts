import { describe, expect, test } from "bun:test";
import { CommandRegistry, SlashAutocomplete } from "../../../src/guest/commands.ts";
import { EditorCompletion } from "../../../src/guest/completions.ts";
import type { Identity } from "../../../src/guest/session.ts";
import { type ChatEntry, chatContract } from "../../../src/plugins/chat/contract.ts";
import { type ChatModeState, type chatModeContract, REPLY_FIELD } from "../../../src/plugins/chat-mode/contract.ts";
import { chatModePlugin } from "../../../src/plugins/chat-mode/tui.ts";
import type { AnyContract } from "../../../src/protocol/contract.ts";
import { ObjectClient, type ObjectRef } from "../../../src/protocol/object-client.ts";
import { testGuest } from "../../support/guest-context.ts";

const SESSION = "00000000-0000-4000-8000-000000000001";
const OWNER: Identity = { role: "deviceOwner", id: "device", name: "owner", session: null };
const ANA: Identity = { role: "full", id: "guest:ana", name: "Ana", session: SESSION };
const VIC: Identity = { role: "view", id: "guest:vic", name: "Vic", session: SESSION };
const signal = new AbortController().signal;

/** The text without its colors (only SGR: any other sequence left in would be a finding). */
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

const author = (who: Identity) => ({ id: who.id, name: who.name, role: who.role });

function chatMessage(seq: number, who: Identity, text: string, quote?: { author: string; line: string }): ChatEntry {
	return {
		seq,
		at: seq,
		kind: "plugin",
		type: "chat-mode.message",
		author: author(who),
		data: { text, ...(quote ? { quote: { seq: 1, ...quote } } : {}) },
	};
}

/** A guest with chat mode's UI, its object and the chat's conversation faked by the test. */
function setup(identity: Identity) {
	const client = new ObjectClient();
	const refs = new Map<string, ObjectRef<AnyContract>>();
	const guest = testGuest({
		identity,
		open: (contract, input) => {
			const ref = client.open(contract, input);
			refs.set(contract.name, ref as unknown as ObjectRef<AnyContract>);
			return ref;
		},
	});
	const chat = client.open(chatContract, { session: SESSION, conversation: "main" });
	const extras: (() => Record<string, string | number | boolean | null> | undefined)[] = [];
	const scrollListeners: (() => void)[] = [];
	let away = false;
	let entries: ChatEntry[] = [];
	guest.ctx.services.provide("conversation", {
		ref: chat,
		entries: () => entries,
		goneDirectory: () => null,
		forkSession: () => Promise.resolve(""),
		current: "main",
		navigate() {},
		onNavigate: () => () => {},
		addSendExtra: (provider) => {
			extras.push(provider);
			return () => {};
		},
		scrolledAway: () => away,
		onScroll: (listener) => {
			scrollListeners.push(listener);
			return () => {};
		},
	});
	const dispose = chatModePlugin.register(guest.ctx);
	guest.ctx.session.open(SESSION);
	const mode = refs.get("chat-mode") as unknown as ObjectRef<typeof chatModeContract>;
	const setMode = (state: Partial<ChatModeState>) =>
		mode.setState({ on: false, waiting: 0, people: [author(OWNER), author(ANA)], ...state });
	const setEntries = (next: ChatEntry[]) => {
		entries = next;
		chat.setState({
			entries: next,
			older: false,
			live: null,
			queue: [],
			returned: [],
			model: null,
			thinkingLevel: "off",
			compacting: null,
			shell: null,
		});
	};
	const below = () => stripAnsi(guest.layout.slots.container("widgets:below").render(100).join("\n"));
	const above = () => stripAnsi(guest.layout.slots.container("widgets:above").render(100).join("\n"));
	const draw = (entry: ChatEntry, kind = "chat-mode.message") =>
		guest.ctx.registries.entryRenderers.resolve(entry, guest.ctx.ui.theme, kind)?.render(100) ?? [];
	return {
		...guest,
		mode,
		setMode,
		setEntries,
		below,
		above,
		draw,
		extras,
		dispose,
		scroll(to: boolean) {
			away = to;
			for (const l of scrollListeners) l();
		},
	};
}

describe("chat mode's UI", () => {
	test("the chip: state and hint while on; to the owner only, how to turn it on once someone else is here", () => {
		const owner = setup(OWNER);
		owner.setMode({ on: false, people: [author(OWNER)] });
		expect(owner.below()).toBe("");
		owner.setMode({ on: false });
		expect(owner.below()).toContain("[Chat off · /chat-mode]");
		owner.setMode({ on: true, waiting: 2 });
		expect(owner.below()).toContain("Chat · 2 waiting for @pi · Enter chats · @pi asks the agent");

		const ana = setup(ANA);
		ana.setMode({ on: false });
		expect(ana.below()).toBe("");
		ana.setMode({ on: true, waiting: 1 });
		expect(ana.below()).toContain("Chat · 1 waiting for @pi");
		// A view-only guest reads: no hint to chat.
		const vic = setup(VIC);
		vic.setMode({ on: true, waiting: 1 });
		expect(vic.below()).toContain("Chat · 1 waiting for @pi");
		expect(vic.below()).not.toContain("Enter chats");
	});

	test("a chat message names its author and quote; a mention is highlighted only for the person it names", () => {
		const ana = setup(ANA);
		const entry = chatMessage(5, OWNER, "wait for it @Ana", { author: "dee", line: "shall I?" });
		const forAna = ana.draw(entry).join("\n");
		expect(stripAnsi(forAna)).toContain("↪ Replying to dee: shall I?");
		expect(stripAnsi(forAna)).toContain("owner · wait for it @Ana");
		expect(forAna).toContain("▍");
		const owner = setup(OWNER);
		const forOwner = owner.draw(entry).join("\n");
		expect(stripAnsi(forOwner)).toContain("you · wait for it @Ana");
		expect(forOwner).not.toContain("▍");
		// Only the whole mention stands out, not the start of a longer name.
		const longer = ana.draw(chatMessage(9, OWNER, "ask @Anabel, then @ana")).join("\n");
		expect(longer).toMatch(/ask @Anabel, then \x1b\[1m/);
		expect(longer).not.toMatch(/\x1b\[1m[^ ]*@Ana/);
		// What others wrote reaches the screen without its control sequences.
		const hostile = stripAnsi(ana.draw(chatMessage(6, OWNER, "hi \x1b]0;pwned\x07 there")).join("\n"));
		expect(hostile).not.toContain("\x1b]0;");
		const switched = stripAnsi(
			ana
				.draw(
					{ seq: 7, at: 7, kind: "plugin", type: "chat-mode.switch", author: author(OWNER), data: { on: true } },
					"chat-mode.switch",
				)
				.join("\n"),
		);
		expect(switched).toContain("Chat mode on (owner)");
		// A message to the agent that names her: her mention in bold, for her only (others' are the transcript's).
		const asked: ChatEntry = { seq: 8, at: 8, kind: "user", text: "@pi ask @Ana", author: author(OWNER), images: 0 };
		const bold = ana.draw(asked, "user").join("\n");
		expect(stripAnsi(bold)).toContain("owner: @pi ask @Ana");
		expect(bold).toMatch(/\x1b\[1m@Ana/);
		expect(owner.draw(asked, "user")).toEqual([]);
		// A task one conversation's agent gave another is the agent's, as the chat names it, not the owner's.
		const byAgent: ChatEntry = { ...asked, seq: 10, author: { id: "agent", name: "agent", role: "owner" } };
		expect(stripAnsi(ana.draw(byAgent, "user").join("\n"))).toContain("agent: @pi ask @Ana");
		expect(ana.draw({ ...asked, text: "@pi nothing for Ana" }, "user")).toEqual([]);
	});

	test("@ offers @pi first, then the people here and those who wrote, then the files", async () => {
		const ana = setup(ANA);
		ana.ctx.registries.completions.add({
			triggerCharacters: ["@"],
			getSuggestions: (lines, line, col) => {
				const token = /@\S*$/.exec((lines[line] ?? "").slice(0, col))?.[0];
				return token ? Promise.resolve({ items: [{ value: "@plan.md", label: "plan.md" }], prefix: token }) : undefined;
			},
			applyCompletion: (lines, cursorLine, cursorCol) => ({ lines, cursorLine, cursorCol }),
		});
		const editor = new EditorCompletion(new SlashAutocomplete(new CommandRegistry()), ana.ctx.registries.completions);
		// Off: only the files.
		ana.setMode({ on: false });
		expect((await editor.getSuggestions(["@"], 0, 1, { signal }))?.items.map((i) => i.value)).toEqual(["@plan.md"]);
		ana.setMode({ on: true, people: [author(OWNER), author(ANA), { id: "guest:dee", name: "Dee Lee", role: "full" }] });
		ana.setEntries([chatMessage(3, { role: "full", id: "guest:bo", name: "Bo", session: SESSION }, "hi")]);
		const all = await editor.getSuggestions(["@"], 0, 1, { signal });
		expect(all?.items.map((i) => i.value)).toEqual(["@pi", "@owner", "@Dee_Lee", "@Bo", "@plan.md"]);
		const applied = editor.applyCompletion(["ask @"], 0, 5, all!.items[0]!, "@");
		expect(applied.lines[0]).toBe("ask @pi ");
		// "@pi" typed whole is the mention: no file is offered for it.
		expect((await editor.getSuggestions(["@pi"], 0, 3, { signal }))?.items.map((i) => i.value)).toEqual(["@pi"]);
	});

	test("/reply picks a message; the pending area quotes it, the next send carries it, /reply again cancels", async () => {
		const ana = setup(ANA);
		ana.setEntries([chatMessage(3, OWNER, "wait, the migration\nmore"), chatMessage(4, ANA, "ok")]);
		await ana.ctx.commands.slash("reply")?.run("");
		expect(ana.notices.at(-1)?.text).toContain("Replies are for chat mode");
		ana.setMode({ on: true });
		await ana.ctx.commands.slash("reply")?.run("");
		expect(ana.layout.selector?.id).toBe("reply");
		const selector = ana.layout.selector!.component;
		expect(stripAnsi(selector.render(100).join("\n"))).toContain("Reply to Message");
		selector.handleInput?.("\x1b[A");
		selector.handleInput?.("\r");
		expect(ana.layout.selector).toBeUndefined();
		expect(ana.above()).toContain("↪ Replying to owner: wait, the migration · /reply cancels");
		expect(ana.extras[0]?.()).toEqual({ [REPLY_FIELD]: 3 });
		expect(ana.above()).toBe("");
		expect(ana.extras[0]?.()).toBeUndefined();
		// Picked and cancelled.
		await ana.ctx.commands.slash("reply")?.run("");
		ana.layout.selector!.component.handleInput?.("\r");
		expect(ana.above()).toContain("Replying to Ana (unverified): ok");
		await ana.ctx.commands.slash("reply")?.run("");
		expect(ana.above()).toBe("");
		expect(ana.extras[0]?.()).toBeUndefined();
	});

	test("a mention while the person reads above raises a status line, cleared when they come back down", () => {
		const ana = setup(ANA);
		ana.setMode({ on: true });
		ana.setEntries([chatMessage(1, OWNER, "earlier @Ana")]);
		const status = () => ana.layout.slots.statuses().join("\n");
		expect(status()).toBe("");
		ana.setEntries([chatMessage(1, OWNER, "earlier @Ana"), chatMessage(2, OWNER, "hello @ana, look")]);
		// At the bottom the message itself is in view.
		expect(status()).toBe("");
		ana.scroll(true);
		ana.setEntries([
			chatMessage(1, OWNER, "earlier @Ana"),
			chatMessage(2, OWNER, "hello @ana, look"),
			chatMessage(3, OWNER, "no mention"),
		]);
		expect(status()).toBe("");
		ana.setEntries([
			chatMessage(1, OWNER, "earlier @Ana"),
			chatMessage(2, OWNER, "hello @ana, look"),
			chatMessage(3, OWNER, "no mention"),
			chatMessage(4, OWNER, "@Ana see the test"),
		]);
		expect(status()).toContain("owner mentioned you: @Ana see the test · scroll down to read");
		ana.scroll(false);
		expect(status()).toBe("");
		// A message to the agent that names her counts too.
		ana.scroll(true);
		ana.setEntries([
			chatMessage(4, OWNER, "@Ana see the test"),
			{ seq: 5, at: 5, kind: "user", text: "@pi ask @Ana", author: author(OWNER), images: 0 },
		]);
		expect(status()).toContain("owner mentioned you: @pi ask @Ana");
	});

	test("only an owner has /chat-mode", async () => {
		const ana = setup(ANA);
		ana.setMode({ on: false });
		await expect(ana.ctx.commands.invoke(ana.ctx.commands.slash("chat-mode")!)).rejects.toThrow(
			"Only the owner can turn chat mode on or off.",
		);
	});
});

import { describe, expect, test } from "bun:test";
import { Text } from "@earendil-works/pi-tui";
import { LauncherChannel } from "../../src/guest/launcher-channel.ts";
import type { GuestPlugin } from "../../src/guest/plugin.ts";
import { Services } from "../../src/guest/services.ts";
import { OpenSession } from "../../src/guest/session.ts";
import type { GuestHost, WorkerMessage } from "../../src/protocol/channel.ts";
import { MAX_COPY_CHARS } from "../../src/protocol/channel-kinds.ts";
import { testGuest } from "../support/guest-context.ts";

const owner = { role: "owner" as const, id: "o1", name: "Owner", session: null };

describe("the open session's changes, as events", () => {
	test("switching closes the one left first; a listener that throws is reported and the others still hear it", () => {
		const errors: unknown[] = [];
		const session = new OpenSession((error) => errors.push(error));
		const heard: string[] = [];
		session.on("closed", ({ id }) => heard.push(`closed ${id}`));
		session.on("opened", () => {
			throw new Error("a broken plugin");
		});
		session.on("opened", ({ id, previous, draft }) => heard.push(`opened ${id} after ${previous} with ${draft}`));
		session.on("identity", ({ identity, before }) => heard.push(`${before?.role} → ${identity.role}`));
		session.setIdentity(owner);
		session.open("a");
		session.open("b", { draft: "hello" });
		session.setIdentity({ ...owner, role: "view" });
		expect(heard).toEqual([
			"undefined → owner",
			"opened a after undefined with undefined",
			"closed a",
			"opened b after a with hello",
			"owner → view",
		]);
		expect(errors.map((e) => (e as Error).message)).toEqual(["a broken plugin", "a broken plugin"]);
		expect(session.id).toBe("b");
		expect(session.role).toBe("view");
	});
});

describe("services plugins offer one another", () => {
	test("one provider per name; a user waiting for a later plugin's service gets it when it comes", () => {
		const services = new Services();
		const got: unknown[] = [];
		services.use("messageSearch", (search) => got.push(search));
		expect(got).toEqual([]);
		const search = async () => ({ hits: [], truncated: false });
		const remove = services.provide("messageSearch", search);
		expect(got).toEqual([search]);
		expect(() => services.provide("messageSearch", search)).toThrow("messageSearch is already provided");
		services.use("messageSearch", (again) => got.push(again));
		expect(got).toEqual([search, search]);
		remove();
		expect(services.get("messageSearch")).toBeUndefined();
	});
});

describe("the launcher channel", () => {
	function channel() {
		const posted: WorkerMessage[] = [];
		const notices: string[] = [];
		const host = { post: (m: WorkerMessage) => posted.push(m), onMessage() {}, start: {} } as unknown as GuestHost;
		return { channel: new LauncherChannel(host, (text, tone) => notices.push(`${tone}: ${text}`)), posted, notices };
	}

	test("a request is answered by its id; the launcher's questions by the latest provider, or null", async () => {
		const { channel: launcher, posted, notices } = channel();
		const answer = launcher.request("openUrl", { url: "https://example.com" });
		expect(posted).toEqual([{ kind: "request", id: "r1", action: "openUrl", payload: { url: "https://example.com" } }]);
		expect(launcher.handle({ kind: "response", id: "r1", ok: false, error: "declined" })).toBe(true);
		expect(await answer).toEqual({ ok: false, error: "declined" });
		launcher.handle({ kind: "ask", id: "a1", question: "copyText" });
		const remove = launcher.answer("copyText", () => "x".repeat(MAX_COPY_CHARS + 5));
		launcher.handle({ kind: "ask", id: "a2", question: "copyText" });
		remove();
		launcher.handle({ kind: "ask", id: "a3", question: "copyText" });
		expect(posted.slice(1)).toEqual([
			{ kind: "answer", id: "a1", text: null },
			{ kind: "answer", id: "a2", text: "x".repeat(MAX_COPY_CHARS) },
			{ kind: "answer", id: "a3", text: null },
		]);
		const texts: string[] = [];
		launcher.on("editorResult", (message) => texts.push(message.text));
		launcher.handle({ kind: "editorResult", text: "edited" });
		launcher.handle({ kind: "actionDone", action: "copy.key", ok: false, detail: "no clipboard" });
		expect(texts).toEqual(["edited"]);
		expect(notices).toEqual(["warning: no clipboard"]);
		expect(launcher.handle({ kind: "redraw" })).toBe(false);
	});
});

describe("a feature is one plugin", () => {
	test("it registers through the context (a command, a footer status, an entry renderer, a session listener) and its disposer takes all of it back", async () => {
		const { ctx, notices } = testGuest({ identity: owner });
		const plugin: GuestPlugin = {
			name: "greeter",
			register(guest) {
				const removals = [
					guest.commands.register({
						id: "greeter.hello",
						title: "Say hello",
						slash: { name: "hello" },
						run: () => guest.ui.notice(`hello from ${guest.session.id ?? "nowhere"}`),
					}),
					guest.registries.entryRenderers.register("greeting", () => new Text("hi", 0, 0)),
					guest.session.on("opened", ({ id }) => guest.ui.slots.setStatus("greeter", `in ${id}`)),
				];
				return () => {
					for (const remove of removals) remove();
					guest.ui.slots.setStatus("greeter", undefined);
				};
			},
		};
		const dispose = plugin.register(ctx);
		ctx.session.open("s1");
		await ctx.commands.slash("hello")?.run("");
		expect(notices.map((n) => n.text)).toEqual(["hello from s1"]);
		expect(ctx.ui.slots.statuses()).toEqual(["in s1"]);
		expect(ctx.registries.entryRenderers.has("greeting")).toBe(true);
		dispose();
		expect(ctx.commands.slash("hello")).toBeUndefined();
		expect(ctx.registries.entryRenderers.has("greeting")).toBe(false);
		expect(ctx.ui.slots.statuses()).toEqual([]);
		ctx.session.open("s2");
		expect(ctx.ui.slots.statuses()).toEqual([]);
	});
});

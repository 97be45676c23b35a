import { describe, expect, test } from "bun:test";
import type { OpenSession } from "../../src/guest/session.ts";
import { type } from "../../src/protocol/ark.ts";
import { defineContract, type InputOf } from "../../src/protocol/contract.ts";
import { ObjectClient, type ObjectRef } from "../../src/protocol/object-client.ts";
import { isParticipantRole } from "../../src/protocol/roles.ts";
import { testGuest } from "../support/guest-context.ts";

const board = defineContract({
	name: "board",
	version: 1,
	input: type({ session: "string" }),
	methods: {},
	variants: {
		deviceOwner: { state: type({ n: "number" }), methods: [] },
		owner: { state: type({ n: "number" }), methods: [] },
		full: { state: type({ n: "number" }), methods: [] },
		view: { state: type({ n: "number" }), methods: [] },
	},
});

/** A guest whose objects are recorded as they open and close. */
function guest() {
	const client = new ObjectClient();
	const log: string[] = [];
	const refs: ObjectRef<typeof board>[] = [];
	const { ctx } = testGuest({
		identity: { role: "owner", id: "o", name: "Owner", session: null },
		open: (contract, input) => {
			const ref = client.open(contract, input);
			const key = JSON.stringify(input);
			log.push(`open ${key}`);
			const close = ref.close.bind(ref);
			Object.defineProperty(ref, "close", {
				value: () => {
					log.push(`close ${key}`);
					close();
				},
			});
			refs.push(ref as unknown as ObjectRef<typeof board>);
			return ref;
		},
	});
	return { ctx, log, refs };
}

/** The board of the open session, for those who take part. */
const forParticipants = (session: OpenSession): InputOf<typeof board> | undefined =>
	session.id && isParticipantRole(session.role) ? { session: session.id } : undefined;

describe("ctx.objects.follow: an object that follows the open session", () => {
	test("opened for the session on screen, closed and opened again as it changes, and closed when none is wanted", () => {
		const { ctx, log } = guest();
		const followed = ctx.objects.follow(board, forParticipants);
		expect(followed.ref).toBeUndefined();
		ctx.session.open("a");
		expect(followed.ref?.input).toEqual({ session: "a" });
		ctx.session.open("a");
		ctx.session.open("b");
		ctx.session.setIdentity({ role: "view", id: "o", name: "Owner", session: "b" });
		expect(followed.ref).toBeUndefined();
		ctx.session.setIdentity({ role: "full", id: "o", name: "Owner", session: "b" });
		followed.close();
		ctx.session.open("c");
		expect(log).toEqual([
			'open {"session":"a"}',
			'close {"session":"a"}',
			'open {"session":"b"}',
			'close {"session":"b"}',
			'open {"session":"b"}',
			'close {"session":"b"}',
		]);
	});

	test("listeners hear the current object's state, an empty state when it is replaced, and never a replaced one's", () => {
		const { ctx, refs } = guest();
		const followed = ctx.objects.follow(board, forParticipants);
		const heard: string[] = [];
		followed.onChange((state, ref) => heard.push(`${ref?.input.session ?? "none"}: ${state?.n ?? "-"}`));
		ctx.session.open("a");
		refs[0]!.setState({ n: 1 });
		expect(followed.state).toEqual({ n: 1 });
		ctx.session.open("b");
		refs[0]!.setState({ n: 2 });
		refs[1]!.setState({ n: 3 });
		ctx.session.setIdentity({ role: "view", id: "o", name: "Owner", session: "b" });
		expect(heard).toEqual(["a: -", "a: 1", "b: -", "b: 3", "none: -"]);
		expect(followed.state).toBeUndefined();
	});

	test("refresh asks for the input again, for what the session's events do not announce", () => {
		const { ctx, log } = guest();
		let conversation = "main";
		const followed = ctx.objects.follow(board, (session) =>
			session.id ? { session: `${session.id}/${conversation}` } : undefined,
		);
		ctx.session.open("a");
		conversation = "sub";
		followed.refresh();
		followed.refresh();
		expect(log).toEqual(['open {"session":"a/main"}', 'close {"session":"a/main"}', 'open {"session":"a/sub"}']);
	});

	test("a lazy one opens only when first used, closes on a session switch, and opens the next session's at its use", () => {
		const { ctx, log } = guest();
		const followed = ctx.objects.follow(board, forParticipants, { lazy: true });
		const heard: string[] = [];
		followed.onChange((state, ref) => heard.push(`${ref?.input.session ?? "none"}: ${state?.n ?? "-"}`));
		ctx.session.open("a");
		ctx.session.open("b");
		expect(followed.ref).toBeUndefined();
		expect(log).toEqual([]);
		expect(followed.use()?.input).toEqual({ session: "b" });
		expect(followed.use()).toBe(followed.ref);
		ctx.session.open("c");
		expect(followed.ref).toBeUndefined();
		ctx.session.open("d");
		expect(followed.use()?.input).toEqual({ session: "d" });
		ctx.session.setIdentity({ role: "view", id: "o", name: "Owner", session: "d" });
		expect(followed.use()).toBeUndefined();
		followed.close();
		expect(log).toEqual([
			'open {"session":"b"}',
			'close {"session":"b"}',
			'open {"session":"d"}',
			'close {"session":"d"}',
		]);
		expect(heard).toEqual(["b: -", "none: -", "d: -", "none: -"]);
	});
});

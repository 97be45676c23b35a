/**
 * The guest's plugin surface is typed from the contracts: these lines are checked by `tsc` (`bun run check`),
 * and each `@ts-expect-error` fails the check if the mistake under it ever compiles.
 */
import { describe, expect, test } from "bun:test";
import type { Requirement } from "../../src/guest/access.ts";
import type { TuiCommand } from "../../src/guest/commands.ts";
import type { Followed } from "../../src/guest/follow.ts";
import type { CheckedEntry } from "../../src/guest/registries.ts";
import { ChatMessageEntry, chatModeContract, SwitchEntry } from "../../src/plugins/chat-mode/contract.ts";
import { sharingContract } from "../../src/plugins/sharing/contract.ts";
import type { StateOf } from "../../src/protocol/contract.ts";
import { testGuest } from "../support/guest-context.ts";

/** `A` and `B` are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Same<A, B>) => proof;

describe("the plugin surface's types", () => {
	test("requires takes a kind of access or roles by name, nothing else", () => {
		const ok: Requirement[] = ["owner", "participant", { role: "owner", to: "share" }, { role: ["full", "view"] }];
		// @ts-expect-error: not a kind of access.
		const wrongAccess: Requirement = "admin";
		// @ts-expect-error: not a role.
		const wrongRole: Requirement = { role: ["guest"] };
		const command: TuiCommand = { id: "x.y", title: "x", requires: "owner", run() {} };
		// @ts-expect-error: `requires` is a requirement, not a boolean.
		const loose: TuiCommand = { id: "x.z", title: "x", requires: true, run() {} };
		expect(ok.length).toBe(4);
		expect(command.requires).toBe("owner");
		expect([wrongAccess, wrongRole, loose].length).toBe(3);
	});

	test("follow takes the contract's input and gives its state", () => {
		const { ctx } = testGuest();
		const sharing = ctx.objects.follow(sharingContract, (session) =>
			session.id ? { session: session.id } : undefined,
		);
		same<typeof sharing, Followed<typeof sharingContract>>(true);
		same<typeof sharing.state, StateOf<typeof sharingContract> | undefined>(true);
		sharing.onChange((state) => {
			same<typeof state, StateOf<typeof sharingContract> | undefined>(true);
		});
		// @ts-expect-error: the input is the contract's ({session}), not another shape.
		const wrongInput = ctx.objects.follow(chatModeContract, () => ({ conversation: "main" }));
		// @ts-expect-error: the chat-mode state has no `guests`.
		ctx.objects.follow(chatModeContract, () => undefined).state?.guests;
		sharing.close();
		wrongInput.close();
		expect(sharing.ref).toBeUndefined();
	});

	test("an entry renderer gets the data its schema declares", () => {
		const { ctx } = testGuest();
		const off = ctx.registries.entryRenderers.registerEntry(ChatMessageEntry, (entry) => {
			same<typeof entry, CheckedEntry<{ text: string; quote?: { seq: number; author: string; line: string } }>>(true);
			// @ts-expect-error: a chat message's data has no `on`.
			entry.data.on;
			return undefined;
		});
		ctx.registries.entryRenderers.registerEntry(SwitchEntry, ({ data }) => {
			same<typeof data, { on: boolean }>(true);
			return undefined;
		});
		// @ts-expect-error: a plugin's entry is registered with its schema, not by its name.
		ctx.registries.entryRenderers.registerEntry("chat-mode.message", () => undefined);
		off();
		expect(ctx.registries.entryRenderers.has("chat-mode.message")).toBe(false);
	});
});

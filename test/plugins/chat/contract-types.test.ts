import { describe, expect, expectTypeOf, test } from "bun:test";
import { type ChatState, type chatContract, ShellArgs } from "../../../src/plugins/chat/contract.ts";
import type { ArgsOf, ResultOf, StateOf } from "../../../src/protocol/contract.ts";
import type { ObjectRef } from "../../../src/protocol/object-client.ts";

type Chat = typeof chatContract;

describe("the chat contract's types (issue 37)", () => {
	test("`shell` takes a request id, as `send` does: a retried command runs once", () => {
		expectTypeOf<ArgsOf<Chat, "shell">>().toEqualTypeOf<{
			command: string;
			includeInContext: boolean;
			requestId: string;
		}>();
		expectTypeOf<ResultOf<Chat, "shell">>().toEqualTypeOf<{ exitCode: number | null; cancelled: boolean }>();
		const call = (chat: ObjectRef<Chat>) =>
			// @ts-expect-error: a command without its request id does not compile.
			chat.call("shell", { command: "ls", includeInContext: true });
		expect(typeof call).toBe("function");
		const missing = ShellArgs({ command: "ls", includeInContext: true });
		expect(String(missing)).toBe("requestId must be a string (was missing)");
		expect(ShellArgs({ command: "ls", includeInContext: true, requestId: "short" }).toString()).toContain(
			"requestId must be matched by",
		);
		expect(ShellArgs({ command: "ls", includeInContext: false, requestId: "abcdefgh" })).toEqual({
			command: "ls",
			includeInContext: false,
			requestId: "abcdefgh",
		});
	});

	test("a pending command's state says how it ended; the context files are optional (a viewer gets none)", () => {
		type Shell = NonNullable<ChatState["shell"]>;
		expectTypeOf<Shell["ended"]>().toEqualTypeOf<{ exitCode: number | null; cancelled: boolean } | undefined>();
		expectTypeOf<StateOf<Chat>["contextFiles"]>().toEqualTypeOf<string[] | undefined>();
	});
});

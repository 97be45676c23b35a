/**
 * The server's plugin surface holds a plugin to its contracts at compile time: `ctx.host.serve` types `open`'s
 * input, the state it serves and each method's arguments and result from the contract, and `plugin.ts` names
 * every type a handler needs. `bun run check` (tsc) is what fails on a broken line; each test also serves its
 * implementation on a real host, so a mistyped one that compiled would be refused at run time.
 */
import { describe, expect, test } from "bun:test";
import type { PortsState } from "../../src/plugins/ports/contract.ts";
import { portsContract } from "../../src/plugins/ports/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { ObjectHost } from "../../src/server/objects/host.ts";
import { type Handlers, LiveState, type OpenedObject, type Principal, refuseEvery } from "../../src/server/plugin.ts";

const STATE: PortsState = { env: "local", ports: [], error: null, at: 0 };

describe("contracts type a plugin's server part", () => {
	test("open's input and the state served come from the contract", () => {
		const host = new ObjectHost();
		host.serve(portsContract, {
			open(input, { principal }) {
				const session: string = input.session;
				// @ts-expect-error: the ports contract's input is {session}, nothing else.
				input.conversation;
				const who: Principal = principal;
				expect(typeof session === "string" && typeof who.role === "string").toBe(true);
				return { state: new LiveState<PortsState>(STATE), methods: { refresh: () => null } };
			},
		});
		expect(host.contracts().map((c) => c.name)).toEqual(["ports"]);
	});

	test("a method without a handler, with the wrong arguments or the wrong result does not compile", () => {
		const live = new LiveState<PortsState>(STATE);
		// @ts-expect-error: `refresh` has no handler.
		const missing: Handlers<typeof portsContract> = {};
		const wrongResult: Handlers<typeof portsContract> = {
			// @ts-expect-error: `refresh` answers null.
			refresh: () => ({ done: true }),
		};
		const wrongState: OpenedObject<typeof portsContract> = {
			// @ts-expect-error: the state served is the contract's (PortsState), not any object.
			state: new LiveState<{ texts: string[] }>({ texts: [] }),
			methods: { refresh: () => null },
		};
		const right: OpenedObject<typeof portsContract> = { state: live, methods: { refresh: async () => null } };
		expect([missing, wrongResult, wrongState, right].length).toBe(4);
	});

	test("handlers refusing every method are the contract's handlers, one per method name", () => {
		const handlers: Handlers<typeof sessionsContract> = refuseEvery(sessionsContract, "forbidden");
		expect(Object.keys(handlers).sort()).toEqual(Object.keys(sessionsContract.methods).sort());
		// @ts-expect-error: a name the contract does not have is not among its handlers.
		handlers.noSuchMethod;
	});
});

/** The owner's search over every session's messages, offered to the session picker (opened on first use). */
import type { GuestPlugin } from "../../guest/plugin.ts";
import type { ResultOf } from "../../protocol/contract.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { searchContract } from "./contract.ts";

export type MessageSearch = (query: string) => Promise<ResultOf<typeof searchContract, "search">>;

declare module "../../guest/services.ts" {
	interface GuestServices {
		/** Finds messages in every session (owners; the server refuses guests). */
		messageSearch: MessageSearch;
	}
}

export const searchPlugin: GuestPlugin = {
	name: "search",
	register(ctx) {
		let search: ObjectRef<typeof searchContract> | undefined;
		const remove = ctx.services.provide("messageSearch", async (query) => {
			search ??= ctx.objects.open(searchContract, {});
			await search.ready;
			return search.call("search", { query });
		});
		return () => {
			remove();
			search?.close();
		};
	},
};

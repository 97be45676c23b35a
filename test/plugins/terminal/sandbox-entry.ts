/**
 * A guest bundle entry for sandbox.test.ts: inside the real sandbox, the panel's emulator (carried as text,
 * evaluated at first use) reads the hostile output, and the lines it draws are logged, one each.
 */
import "../../../src/guest/platform-prelude.ts";
import type { GuestEntry } from "../../../src/protocol/channel.ts";
import { errorText } from "../../../src/protocol/errors.ts";
import { drawHostile } from "./hostile-output.ts";

const entry: GuestEntry = {
	start(host) {
		const log = (text: string) => host.post({ kind: "log", level: "info", text });
		drawHostile().then(
			({ lines, modes }) => {
				for (const line of lines) log(`line ${JSON.stringify(line)}`);
				log(`modes ${JSON.stringify(modes)}`);
				log("done");
			},
			(error: unknown) => {
				log(`failed: ${errorText(error)}`);
				log("done");
			},
		);
		host.post({ kind: "ready" });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;

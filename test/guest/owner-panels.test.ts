import { describe, expect, test } from "bun:test";
import { devReloadPlugin } from "../../src/plugins/dev-reload/tui.ts";
import { devicesPlugin } from "../../src/plugins/devices/tui.ts";
import { logsPlugin } from "../../src/plugins/logs/tui.ts";
import { noticesPlugin } from "../../src/plugins/notices/tui.ts";
import { portsPlugin } from "../../src/plugins/ports/tui.ts";
import { providersPlugin } from "../../src/plugins/providers/tui.ts";
import type { Role } from "../../src/protocol/roles.ts";
import { testGuest } from "../support/guest-context.ts";

const OWNER_OBJECTS = ["notices", "logs", "devices", "providers", "dev", "ports"];
const COMMANDS = ["notices", "retry", "logs", "devices", "providers", "dev-reload", "ports"];

function guestAs(role: Role) {
	const guest = testGuest({
		identity: { role, id: role, name: role, session: role === "full" || role === "view" ? "s1" : null },
	});
	for (const plugin of [noticesPlugin, logsPlugin, devicesPlugin, providersPlugin, devReloadPlugin, portsPlugin])
		plugin.register(guest.ctx);
	return guest;
}

describe("the owner's panels in the UI", () => {
	for (const role of ["full", "view"] as const) {
		test(`a ${role} guest never asks for the owner's objects, even typing the commands`, async () => {
			const guest = guestAs(role);
			for (const name of COMMANDS) {
				const command = guest.ctx.commands.slash(name);
				expect(command?.id).toBeDefined();
				await guest.ctx.commands.invoke(command!).catch((error) => guest.ctx.ui.fail(error));
			}
			expect(guest.opened.filter((o) => OWNER_OBJECTS.includes(o))).toEqual([]);
			expect(guest.notices.map((n) => n.text)).toContain("Only the owner can read the server's log.");
		});
	}

	test("an owner holds the notices from the start, and the others only while their panel is open", async () => {
		const guest = guestAs("owner");
		expect(guest.opened).toEqual(["notices"]);
		await guest.ctx.commands.slash("logs")?.run("");
		expect(guest.ctx.ui.selector?.id).toBe("logs");
		expect(guest.opened).toEqual(["notices", "logs"]);
	});
});

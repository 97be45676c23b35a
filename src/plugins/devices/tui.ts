/**
 * `/devices`: the owner sign-ins of this server with when and from where each was made and last
 * used, this device marked. Ctrl+D signs one out (this device through the launcher's signOut, which holds the
 * cookie and asks first), `a` signs every owner out, `n` makes a one-time owner link for a new device, which
 * only the launcher's own screen shows (it asks before copying it). Owners only.
 */
import { matchesKey } from "@earendil-works/pi-tui";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import { ListPanel } from "../../ui/list-panel.ts";
import { devicesContract, type SignIn } from "./contract.ts";

function when(ms: number, now: number): string {
	const minutes = Math.floor((now - ms) / 60_000);
	if (minutes < 1) return "just now";
	if (minutes < 60) return `${minutes}m ago`;
	const hours = Math.floor(minutes / 60);
	return hours < 24 ? `${hours}h ago` : `${Math.floor(hours / 24)}d ago`;
}

export const devicesPlugin: GuestPlugin = {
	name: "devices",
	register(ctx) {
		return ctx.commands.register({
			id: "p2.devices",
			title: "Devices signed in as the server's owner: sign out, link a new device",
			category: "p2",
			requires: { role: "owner", to: "see the server's devices" },
			slash: { name: "devices" },
			run: () => openDevices(ctx),
		});
	},
};

function openDevices(ctx: GuestContext): void {
	const { ui, launcher } = ctx;
	const ref = ctx.objects.open(devicesContract, {});
	const fail = (error: unknown) => ui.fail(error);
	const signOutHere = async (all: boolean) => {
		const answer = await launcher.request("signOut", { all });
		if (!answer.ok && answer.error !== "declined") ui.notice(`Not signed out: ${answer.error ?? "refused"}`, "warning");
	};
	const link = async () => {
		const { path } = await ref.call("link", {});
		const answer = await launcher.request("copy", {
			text: `${ctx.start.origin}${path}`,
			label: "a one-time owner link for a new device (valid for a day)",
		});
		if (!answer.ok && answer.error !== "declined") ui.notice(`Not copied: ${answer.error ?? "refused"}`, "warning");
	};
	const device = ctx.session.role === "deviceOwner";
	ref.onChange(() => {
		if (ui.selector?.id === "devices") ui.requestRender();
	});
	const panel = new ListPanel<SignIn>(ui.theme, {
		title: device ? "Owner sign-ins · this device is the server's own (it needs none)" : "Owner sign-ins",
		empty: "No device is signed in with an owner link.",
		items: () => ref.state?.signIns,
		row: (s) => {
			const now = Date.now();
			const from = [s.address, s.agent].filter((v) => v).join(" · ");
			return {
				left: `${s.current ? "this device · " : ""}signed in ${when(s.createdAt, now)}${from ? ` from ${from}` : ""}`,
				right: `last used ${when(s.lastUsedAt, now)}`,
			};
		},
		hint: (s) => `${s ? "ctrl+d sign out · a sign out all · " : ""}n link a new device · ↑↓ move · esc close`,
		onKey: (data, s, ask) => {
			if (data === "n") {
				link().catch(fail);
				return true;
			}
			if (data === "a" && s) {
				ask("Sign every owner device out? Each needs a new owner link afterwards.", () => {
					if (device) ref.call("signOutAll", {}).then(({ ended }) => ui.notice(`Signed out ${ended} devices.`), fail);
					else void signOutHere(true);
				});
				return true;
			}
			if (matchesKey(data, "ctrl+d") && s) {
				if (s.current) void signOutHere(false);
				else
					ask("Sign this device out? It needs a new owner link afterwards.", () => {
						ref.call("signOut", { id: s.id }).then(() => ui.notice("Signed out."), fail);
					});
				return true;
			}
			return false;
		},
		close: () => {
			ui.closeSelector();
			ref.close();
		},
	});
	ui.showSelector("devices", panel);
}

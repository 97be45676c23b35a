/**
 * `/ports`: the TCP ports listening in the open session's environment, with the process holding each; Ctrl+R
 * lists them again, Enter opens one on this computer (the launcher asks, then listens on its loopback until p2
 * exits or Ctrl+X closes it) and, once open, in the browser (the launcher asks again). Owners, and full guests
 * when the owner allows it in /share.
 */
import { getKeybindings, matchesKey } from "@earendil-works/pi-tui";
import type { GuestPlugin } from "../../guest/plugin.ts";
import { ListPanel } from "../../ui/list-panel.ts";
import { type ListeningPort, portsContract } from "./contract.ts";

export const portsPlugin: GuestPlugin = {
	name: "ports",
	register(ctx) {
		/** The forwards this launcher opened, by session and the remote port: their local addresses. */
		const opened = new Map<string, string>();
		const key = (session: string, port: number) => `${session}:${port}`;
		return ctx.commands.register({
			id: "p2.ports",
			title: "TCP ports listening in the session's environment",
			category: "p2",
			requires: { role: "participant", to: "list the ports (a guest, when the owner allowed it)" },
			slash: { name: "ports" },
			run: () => {
				const { ui } = ctx;
				const session = ctx.session.id;
				if (!session) return ui.notice("Open a session to list the ports of its environment.");
				const ref = ctx.objects.open(portsContract, { session });
				ref.onChange(() => {
					if (ui.selector?.id === "ports") ui.requestRender();
				});
				// A guest the owner has not allowed (or no longer allows) is refused: said, and the list closes.
				ref.ready.catch((error: unknown) => {
					if (ui.selector?.id === "ports") ui.closeSelector();
					ref.close();
					ui.fail(error);
				});
				const env = () => ref.state?.env ?? "";
				// The launcher listens on this computer's loopback and asks first; the answer names the address.
				const forward = async (port: number) => {
					const answer = await ctx.launcher.request("forward", { port });
					if (answer.ok && answer.forwarded) {
						opened.set(key(session, port), answer.forwarded);
						ui.notice(`Port ${port} is open on this computer at http://${answer.forwarded} until p2 exits.`);
						ui.requestRender();
					} else if (!answer.ok && answer.error !== "declined")
						ui.notice(`Not opened: ${answer.error ?? "refused"}`, "warning");
				};
				const browse = async (address: string) => {
					const answer = await ctx.launcher.request("openUrl", { url: `http://${address}/` });
					if (!answer.ok && answer.error !== "declined")
						ui.notice(`Not opened: ${answer.error ?? "refused"}`, "warning");
				};
				const unforward = async (port: number, address: string) => {
					opened.delete(key(session, port));
					ui.requestRender();
					const local = Number(address.slice(address.lastIndexOf(":") + 1));
					const answer = await ctx.launcher.request("forward", { close: local });
					ui.notice(
						answer.ok ? `Port ${port} is no longer open on this computer.` : `Port ${port} was already closed.`,
					);
				};
				const local = (p: ListeningPort) => opened.get(key(session, p.port));
				ui.showSelector(
					"ports",
					new ListPanel<ListeningPort>(ui.theme, {
						get title() {
							const state = ref.state;
							return `Ports listening${env() ? ` · ${env() === "local" ? "on the server's machine" : env()}` : ""}${state?.error ? ` · ${state.error}` : ""}`;
						},
						empty: "No TCP port is listening.",
						items: () => ref.state?.ports,
						row: (p) => ({
							left: `${p.port} on ${p.address}${local(p) ? ` · open here at http://${local(p)}` : ""}`,
							right: p.process ? `${p.process} (pid ${p.pid})` : p.pid !== null ? `pid ${p.pid}` : "process not known",
						}),
						matches: (p, typed) =>
							String(p.port).startsWith(typed) || (p.process ?? "").toLowerCase().includes(typed.toLowerCase()),
						hint: (p) =>
							`${!p ? "" : local(p) ? "enter open in browser · ctrl+x close here · " : "enter open on this computer · "}type to filter · ctrl+r list again · ↑↓ move · esc close`,
						onKey: (data, p) => {
							const address = p && local(p);
							if (p && getKeybindings().matches(data, "tui.select.confirm")) {
								void (address ? browse(address) : forward(p.port));
								return true;
							}
							if (p && address && matchesKey(data, "ctrl+x")) {
								void unforward(p.port, address);
								return true;
							}
							if (!matchesKey(data, "ctrl+r")) return false;
							ref.call("refresh", {}).catch((error: unknown) => ui.fail(error));
							return true;
						},
						close: () => {
							ui.closeSelector();
							ref.close();
						},
					}),
				);
			},
		});
	},
};

/** Files between this computer and the session: /attach (and Backspace to take one back), /detach, /download. */
import type { GuestContext } from "../../../guest/plugin.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { FilterSelector } from "../../../ui/selector.ts";
import { groupDigits } from "../../../ui/text.ts";
import type { chatContract } from "../contract.ts";
import type { ChatScreen } from "./screen.ts";

/** The launcher names the file and asks before anything leaves or enters this computer. */
export function registerFileCommands(
	ctx: GuestContext,
	screen: ChatScreen,
	chat: () => ObjectRef<typeof chatContract> | undefined,
): () => void {
	const { commands, ui } = ctx;
	const request = ctx.launcher.request.bind(ctx.launcher);
	const removals = [
		commands.register({
			id: "p2.chat.attach",
			title: "Attach a file from this computer to the next message",
			category: "Other",
			slash: { name: "attach", argumentHint: "[path]" },
			// Without a path the launcher shows its own file picker; either way it asks before anything is sent.
			run: async (path) => {
				const answer = await request("attach", { path });
				if (answer.ok && answer.attached) screen.attach(answer.attached);
				else if (answer.error !== "declined") ui.notice(`Not attached: ${answer.error ?? "refused"}`, "warning");
			},
		}),
		commands.register({
			id: "p2.chat.detach",
			title: "Remove the last attached file",
			category: "Other",
			keys: ["backspace"],
			when: "chat && editorFocused && editorEmpty && attachments",
			palette: false,
			run: () => void screen.detach(),
		}),
		commands.register({
			id: "p2.chat.download",
			title: "Save a file sent to this session on this computer",
			category: "Other",
			slash: { name: "download" },
			run: async () => {
				const ref = chat();
				const session = ctx.session.id;
				if (!ref || !session) return ui.notice("No session is open yet.");
				const { files } = await ref.call("files", null);
				if (!files.length) return ui.notice("No files were sent to this session.");
				ui.showSelector(
					"download",
					new FilterSelector(ui.theme, {
						title: "Save which file?",
						items: files.map((f) => ({
							value: f.id,
							label: f.name,
							description: `${groupDigits(f.size)} bytes${f.agent ? " · sent by the agent" : ""}`,
						})),
						hint: "↑↓ navigate  enter save (the launcher asks first)  escape cancel",
						onCancel: () => ui.closeSelector(),
						onSelect: (item) => {
							ui.closeSelector();
							const file = files.find((f) => f.id === item.value);
							if (!file) return;
							void request("download", { session, id: file.id, name: file.name, size: file.size }).then((answer) => {
								if (answer.ok) ui.notice(`Saved ${file.name} in your download folder`, "success");
								else if (answer.error !== "declined") ui.notice(`Not saved: ${answer.error ?? "refused"}`, "warning");
							});
						},
					}),
				);
			},
		}),
		commands.register({
			id: "p2.chat.detachAll",
			title: "Remove every attached file",
			category: "Other",
			slash: { name: "detach" },
			run: () => {
				if (!screen.detach(true).length) ui.notice("No files are attached.");
			},
		}),
	];
	return () => {
		for (const remove of removals) remove();
	};
}

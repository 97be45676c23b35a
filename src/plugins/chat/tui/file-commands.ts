/**
 * Files between this computer and the session: /attach (and Backspace to take one back), /detach, /download (the
 * files people and the agent sent: Enter previews, Ctrl+S saves through the launcher).
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { FilterSelector } from "../../../ui/selector.ts";
import { groupDigits, visibleText } from "../../../ui/text.ts";
import { TextViewer, wholeText } from "../../../ui/text-viewer.ts";
import type { chatContract, SessionFile } from "../contract.ts";
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
			title: "Files sent to this session (by people and by the agent): preview, save on this computer",
			category: "Other",
			slash: { name: "download" },
			run: async () => {
				const ref = chat();
				const session = ctx.session.id;
				if (!ref || !session) return ui.notice("No session is open yet.");
				const { files } = await ref.call("files", null);
				if (!files.length) return ui.notice("No files were sent to this session.");
				const save = (file: SessionFile) =>
					void request("download", { session, id: file.id, name: file.name, size: file.size }).then((answer) => {
						if (answer.ok) ui.notice(`Saved ${file.name} in your download folder`, "success");
						else if (answer.error !== "declined") ui.notice(`Not saved: ${answer.error ?? "refused"}`, "warning");
					});
				const list = () =>
					ui.showSelector(
						"download",
						new FilterSelector(ui.theme, {
							title: "Files sent to this session",
							items: files.map((f) => ({
								value: f.id,
								label: visibleText(f.name, false),
								description: `${groupDigits(f.size)} bytes${f.agent ? " · sent by the agent" : ""}`,
							})),
							hint: "↑↓ navigate  enter preview (ctrl+s there saves)  escape cancel",
							onCancel: () => ui.closeSelector(),
							onSelect: (item) => {
								const file = files.find((f) => f.id === item.value);
								if (file) preview(file).catch((error: unknown) => ui.fail(error));
							},
						}),
					);
				// The worker has no cookie: the preview comes through the chat object, bounded; saving is the launcher's.
				const preview = async (file: SessionFile) => {
					const shown = await ref.call("preview", { id: file.id });
					const t = () => ui.theme.current;
					const lines =
						shown.text === null
							? () => [t().fg("muted", "A binary file: not shown here. ctrl+s saves it.")]
							: () =>
									visibleText(shown.text ?? "")
										.replace(/\n$/, "")
										.split("\n")
										.map((l) => t().fg("toolOutput", l));
					ui.showSelector(
						"download-preview",
						new TextViewer(ui.theme, {
							title: visibleText(file.name, false),
							note: `${groupDigits(file.size)} bytes${shown.truncated ? " · the start only" : ""}`,
							source: wholeText(lines),
							numbers: shown.text !== null,
							keys: [
								{ key: "ctrl+s", hint: "ctrl+s save (the launcher asks first)", run: () => save(file) },
								{
									key: "ctrl+b",
									hint: "ctrl+b browser (its own sign-in)",
									// The worker's realm has no URLSearchParams: the query is encoded by hand.
									run: () =>
										void request("openUrl", {
											kind: "origin",
											path: `/download?session=${encodeURIComponent(session)}&id=${encodeURIComponent(file.id)}`,
										}).then((answer) => {
											if (!answer.ok && answer.error !== "declined")
												ui.notice(`Not opened: ${answer.error ?? "refused"}`, "warning");
										}),
								},
							],
							height: () => Math.max(8, ui.tui.terminal.rows - 6),
							onClose: list,
							requestRender: () => ui.requestRender(),
						}),
					);
				};
				list();
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
	removals.push(attachStartFiles(ctx, screen));
	return () => {
		for (const remove of removals) remove();
	};
}

/**
 * pi's `p2 @file …`: the files the person named on the command line, offered to attach once the first session
 * opens (the launcher names each and asks, as for /attach); they go with the first message, whose words are the
 * draft. Not again after a reload: the attachments are in the snapshot by then.
 */
function attachStartFiles(ctx: GuestContext, screen: ChatScreen): () => void {
	const files = ctx.start.args.files ?? [];
	if (!files.length || ctx.start.reason !== "start") return () => {};
	const off = ctx.session.on("opened", () => {
		off();
		void (async () => {
			for (const path of files) {
				const answer = await ctx.launcher.request("attach", { path });
				if (answer.ok && answer.attached) screen.attach(answer.attached);
				else if (answer.error !== "declined") ctx.ui.notice(`Not attached: ${answer.error ?? "refused"}`, "warning");
			}
		})();
	});
	return off;
}

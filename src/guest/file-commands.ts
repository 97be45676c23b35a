/** Files between this computer and the session: /attach (and Backspace to take one back), /detach, /download. */
import type { chatContract } from "../plugins/chat/contract.ts";
import type { ObjectRef } from "../protocol/object-client.ts";
import { FilterSelector } from "../ui/selector.ts";
import { groupDigits } from "../ui/text.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import type { ChatScreen } from "./chat-screen.ts";
import type { CommandRegistry } from "./commands.ts";
import type { LauncherAnswer, LauncherRequest } from "./runtime.ts";

export interface FileCommandsContext {
	readonly theme: ThemeRef;
	readonly screen: ChatScreen;
	chat(): ObjectRef<typeof chatContract> | undefined;
	session(): string | undefined;
	/** The launcher's actions: it names the file and asks before anything leaves or enters this computer. */
	request(...args: Extract<LauncherRequest, ["attach", unknown] | ["download", unknown]>): Promise<LauncherAnswer>;
}

export function registerFileCommands(commands: CommandRegistry, ctx: FileCommandsContext): void {
	commands.register({
		id: "p2.chat.attach",
		title: "Attach a file from this computer to the next message",
		category: "Other",
		slash: { name: "attach", argumentHint: "[path]" },
		// Without a path the launcher shows its own file picker; either way it asks before anything is sent.
		run: async (path) => {
			const answer = await ctx.request("attach", { path });
			if (answer.ok && answer.attached) ctx.screen.attach(answer.attached);
			else if (answer.error !== "declined") ctx.screen.notice(`Not attached: ${answer.error ?? "refused"}`, "warning");
		},
	});
	commands.register({
		id: "p2.chat.detach",
		title: "Remove the last attached file",
		category: "Other",
		keys: ["backspace"],
		when: "chat && editorFocused && editorEmpty && attachments",
		palette: false,
		run: () => void ctx.screen.detach(),
	});
	commands.register({
		id: "p2.chat.download",
		title: "Save a file sent to this session on this computer",
		category: "Other",
		slash: { name: "download" },
		run: async () => {
			const chat = ctx.chat();
			const session = ctx.session();
			if (!chat || !session) return ctx.screen.notice("No session is open yet.");
			const { files } = await chat.call("files", null);
			if (!files.length) return ctx.screen.notice("No files were sent to this session.");
			ctx.screen.showSelector(
				"download",
				new FilterSelector(ctx.theme, {
					title: "Save which file?",
					items: files.map((f) => ({
						value: f.id,
						label: f.name,
						description: `${groupDigits(f.size)} bytes`,
					})),
					hint: "↑↓ navigate  enter save (the launcher asks first)  escape cancel",
					onCancel: () => ctx.screen.closeSelector(),
					onSelect: (item) => {
						ctx.screen.closeSelector();
						const file = files.find((f) => f.id === item.value);
						if (!file) return;
						void ctx.request("download", { session, id: file.id, name: file.name, size: file.size }).then((answer) => {
							if (answer.ok) ctx.screen.notice(`Saved ${file.name} in your download folder`, "success");
							else if (answer.error !== "declined")
								ctx.screen.notice(`Not saved: ${answer.error ?? "refused"}`, "warning");
						});
					},
				}),
			);
		},
	});
	commands.register({
		id: "p2.chat.detachAll",
		title: "Remove every attached file",
		category: "Other",
		slash: { name: "detach" },
		run: () => {
			if (!ctx.screen.detach(true).length) ctx.screen.notice("No files are attached.");
		},
	});
}

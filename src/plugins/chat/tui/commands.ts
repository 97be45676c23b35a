/**
 * The chat's commands: stopping the agent, the follow-up queue, what the transcript shows, leaving bash mode,
 * and pi's /compact and p2's /new-context. pi's ids keep pi's keys.
 */
import type { TuiCommand } from "../../../guest/commands.ts";
import type { GuestContext } from "../../../guest/plugin.ts";
import type { ChatActions } from "./actions.ts";
import type { ChatScreen } from "./screen.ts";

export function registerChatCommands(ctx: GuestContext, screen: ChatScreen, actions: ChatActions): () => void {
	const commands: TuiCommand[] = [
		{
			id: "app.interrupt",
			title: "Cancel autocomplete / abort streaming",
			category: "Other",
			when: "chat && busy && !autocomplete",
			run: () => void actions.stop(),
		},
		{
			id: "app.tools.expand",
			title: "Toggle tool output expansion",
			category: "Other",
			when: "chat",
			run: () => screen.toggleToolsExpanded(),
		},
		{
			id: "app.thinking.toggle",
			title: "Toggle thinking block visibility",
			category: "Other",
			when: "chat",
			// pi saves the setting; p2 keeps it for this run (a save asks on the launcher's screen), and /settings shows it.
			run: () => {
				const hidden = !screen.thinkingHidden;
				ctx.preferences.setForRun({ hideThinkingBlock: hidden });
				screen.notice(`Thinking blocks: ${hidden ? "hidden" : "visible"}`);
			},
		},
		{
			id: "app.message.followUp",
			title: "Queue follow-up message",
			category: "Other",
			when: "chat && editorFocused",
			run: () => screen.submit(screen.editorText(), "followUp"),
		},
		{
			id: "app.message.dequeue",
			title: "Restore queued messages",
			category: "Other",
			when: "chat",
			run: () => void actions.restoreQueued(),
		},
		{
			id: "p2.chat.leaveBashMode",
			title: "Leave bash mode (clears a `!` command not yet run)",
			category: "Other",
			keys: ["escape"],
			// pi: Esc in bash mode clears the editor; while something runs, Esc stops it instead.
			when: "chat && editorFocused && bashMode && !busy && !autocomplete",
			palette: false,
			run: () => ctx.ui.setEditorText(""),
		},
		{
			id: "p2.chat.compact",
			title: "Manually compact the session context",
			category: "Sessions",
			when: "chat",
			requires: { role: "participant", to: "compact" },
			slash: { name: "compact", argumentHint: "[instructions]" },
			run: (instructions) => actions.compact(instructions),
		},
		{
			id: "p2.chat.newContext",
			title: "Start a fresh context for the model here (the transcript stays), with an optional handoff note",
			category: "Sessions",
			when: "chat",
			requires: { role: "owner", to: "start a fresh context" },
			slash: { name: "new-context", argumentHint: "[handoff]" },
			run: (handoff) => actions.newContext(handoff),
		},
	];
	const removals = commands.map((command) => ctx.commands.register(command));
	return () => {
		for (const remove of removals) remove();
	};
}

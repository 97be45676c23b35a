/**
 * The chat: pi's screen on the open session's main conversation, what the person does to it (send, stop,
 * queue, compact, `!` commands, files), and its part of the launcher's actions. It mounts the guest's screen.
 */
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { Identity } from "../../guest/session.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { guestLabel } from "../../protocol/share-link.ts";
import { ChatActions } from "./tui/actions.ts";
import { registerChatCommands } from "./tui/commands.ts";
import { OpenConversation } from "./tui/conversation.ts";
import { conversationService } from "./tui/conversation-service.ts";
import { entryImageParts } from "./tui/entry-image-parts.ts";
import { registerFileCommands } from "./tui/file-commands.ts";
import { registerLauncherAnswers } from "./tui/launcher-answers.ts";
import { ChatScreen, DEFAULT_CHAT_SETTINGS } from "./tui/screen.ts";
import { ShownChat } from "./tui/shown-chat.ts";

const ROLE_LABELS = {
	deviceOwner: "this device",
	owner: "owner",
	full: "guest · full access",
	view: "guest · view only",
} as const;

/** The header's words for who this is: a guest's own (unverified) name and their access. */
function roleLabel(identity: Identity): string {
	if (identity.role !== "full" && identity.role !== "view") return ROLE_LABELS[identity.role];
	const access = identity.role === "full" ? "full access" : "view only";
	return `guest · ${guestLabel(identity.name)} · ${access}`;
}

function clamp(value: number, min: number, max: number): number {
	return Math.max(min, Math.min(max, Math.floor(value)));
}

export const chatPlugin: GuestPlugin = {
	name: "chat",
	register(ctx) {
		const { start, ui, session } = ctx;
		const host = start.origin.replace(/^[a-z]+:\/\//, "");
		// What the launcher signed in as, until the server says who this is.
		const signedIn = start.signedInAs === "device" ? "deviceOwner" : start.signedInAs === "owner" ? "owner" : undefined;
		// Built in the order data flows: server state → the open conversation → the screen, and keys → the screen
		// → the actions → the shown conversation's object. Each part gets only what it uses.
		const shown = new ShownChat();
		const actions = new ChatActions({ ui, session, shown });
		const screen = new ChatScreen({
			ui,
			registries: ctx.registries,
			commands: ctx.commands,
			place: `${host} · ${signedIn ? ROLE_LABELS[signedIn] : "…"}`,
			home: start.local?.home,
			draft: ctx.snapshot.restored?.draft ?? start.args.draft,
			verbose: start.args.verbose,
			send: (text, mode, attachments) => actions.send(text, mode, attachments),
			shell: (command, includeInContext) => actions.shell(command, includeInContext),
			loadOlder: (beforeSeq) => actions.loadOlder(beforeSeq),
			images: {
				parts: entryImageParts(ctx.images, () => shown.ref),
				drawn: () => ctx.images.protocol !== undefined,
			},
		});
		const open = new OpenConversation(ctx, screen, shown);
		const progress = () => {
			const setting = ctx.preferences.effective().settings.terminal?.showTerminalProgress === true;
			ui.setProgress(setting && screen.busy);
		};
		const applySettings = () => {
			screen.applySettings(chatSettings(ctx));
			progress();
		};
		applySettings();
		// The usage plugin's numbers for the footer, once it is there (it registers after this one).
		let offUsage: (() => void) | undefined;
		ctx.services.use("usage", (usage) => {
			offUsage = usage.onChange((state) => screen.setUsage(state));
		});
		let offProviders: (() => void) | undefined;
		ctx.services.use("models", (models) => {
			offProviders = models.onProviderCount((count) => screen.setProviderCount(count));
		});
		// The session's skills and prompt templates under the header, from the plugin that lists them.
		let offResources: (() => void) | undefined;
		ctx.services.use("promptResources", (resources) => {
			offResources = resources.onChange((loaded) => screen.setLoadedResources(loaded));
		});
		const removals = [
			ui.mount(screen),
			// Texts others sent back to this person go into the editor; the terminal's progress follows the run.
			shown.onChange((chat, state) => {
				actions.takeReturned(chat, state);
				progress();
			}),
			ctx.services.provide(
				"conversation",
				conversationService({ objects: ctx.objects, shown, conversation: open, actions, screen }),
			),
			session.on("opened", (event) => open.opened(event)),
			session.on("identity", ({ identity }) => {
				screen.setPlace(`${host} · ${roleLabel(identity)}`);
				screen.setViewer(identity.id, isOwnerRole(identity.role));
				// A view-only guest gets the read-only bar where the editor would be; a demotion takes it away live.
				screen.setReadOnly(identity.role === "view" ? `Joined as ${guestLabel(identity.name)} · read-only` : undefined);
			}),
			session.on("facts", (facts) => screen.setSession(facts)),
			ctx.objects.onConnection((state) => screen.setConnection(state)),
			ui.onKeysChanged(() => screen.keysChanged()),
			ctx.preferences.onChange(applySettings),
			// Another protocol, or an image refused (its placeholder instead): the transcript is drawn again.
			ctx.images.onChange(() => {
				ui.tui.invalidate();
				applySettings();
			}),
			ctx.registries.addContexts((contexts) => {
				const text = screen.editorText();
				if (text === "") contexts.add("editorEmpty");
				if (text.startsWith("!")) contexts.add("bashMode");
				if (screen.editor.isShowingAutocomplete()) contexts.add("autocomplete");
				if (screen.busy) contexts.add("busy");
				if (screen.attachments.length) contexts.add("attachments");
			}),
			ctx.snapshot.contribute(() => open.snapshot()),
			registerChatCommands(ctx, screen, actions),
			registerLauncherAnswers(ctx, screen, () => shown.state),
			registerFileCommands(ctx, screen, () => shown.ref),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			offUsage?.();
			offProviders?.();
			offResources?.();
			open.dispose();
			screen.dispose();
		};
	},
};

/** pi's display settings for the chat, with pi's bounds. */
function chatSettings(ctx: GuestContext) {
	const s = ctx.preferences.effective().settings;
	return {
		hideThinkingBlock: s.hideThinkingBlock ?? DEFAULT_CHAT_SETTINGS.hideThinkingBlock,
		editorPaddingX: clamp(s.editorPaddingX ?? DEFAULT_CHAT_SETTINGS.editorPaddingX, 0, 3),
		autocompleteMaxVisible: clamp(s.autocompleteMaxVisible ?? DEFAULT_CHAT_SETTINGS.autocompleteMaxVisible, 3, 20),
		quietStartup: s.quietStartup ?? DEFAULT_CHAT_SETTINGS.quietStartup,
		mermaid: s.markdown?.mermaid ?? DEFAULT_CHAT_SETTINGS.mermaid,
		scrollbar: s.fullscreenScrollbar ?? DEFAULT_CHAT_SETTINGS.scrollbar,
		showImages: s.terminal?.showImages ?? DEFAULT_CHAT_SETTINGS.showImages,
		imageWidthCells: clamp(s.terminal?.imageWidthCells ?? DEFAULT_CHAT_SETTINGS.imageWidthCells, 1, 500),
	};
}

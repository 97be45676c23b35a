/**
 * A guest context for plugin tests: the guest's own core parts (layout, commands, session, services,
 * registries) on a fake terminal, with the server's objects and the launcher's answers given by the test.
 */
import { type Component, Container, TuiAltScreen } from "@earendil-works/pi-tui";
import { CommandRegistry } from "../../src/guest/commands.ts";
import { Completions } from "../../src/guest/completions.ts";
import { FollowedObject } from "../../src/guest/follow.ts";
import { InlineImages } from "../../src/guest/inline-images.ts";
import type { LauncherAction, LauncherAnswer, LauncherPayload } from "../../src/guest/launcher-channel.ts";
import { Layout, type NoticeTone } from "../../src/guest/layout.ts";
import type { GuestContext } from "../../src/guest/plugin.ts";
import { effectivePreferences } from "../../src/guest/preferences.ts";
import { EntryRenderers, MarkdownTransformers, ToolRenderers } from "../../src/guest/registries.ts";
import { Services } from "../../src/guest/services.ts";
import { type Identity, OpenSession } from "../../src/guest/session.ts";
import { arktypeChecks } from "../../src/protocol/arktype-checks.ts";
import type { StartData } from "../../src/protocol/channel.ts";
import type { AnyContract, InputOf } from "../../src/protocol/contract.ts";
import { ObjectClient, type ObjectRef } from "../../src/protocol/object-client.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";
import { FakeTerminal } from "./fake-terminal.ts";
import { TEST_START } from "./start-data.ts";

export interface TestGuestOptions {
	readonly identity?: Identity;
	/** The server's objects; by default they stay "connecting" (no server answers). */
	open?<C extends AnyContract>(contract: C, input: InputOf<C>): ObjectRef<C>;
	/** The launcher's answers; by default every request is declined. */
	answer?<A extends LauncherAction>(action: A, payload: LauncherPayload<A>): LauncherAnswer;
	readonly start?: Partial<StartData>;
}

export interface TestGuest {
	readonly ctx: GuestContext;
	readonly layout: Layout;
	/** The objects plugins opened, by contract name. */
	readonly opened: string[];
	/** What was said in the transcript. */
	readonly notices: { text: string; tone: NoticeTone }[];
	readonly requests: { action: LauncherAction; payload: unknown }[];
}

/** The guest's layout over `tui`, in the plain theme, with no keys bound. */
export function testLayout(tui: TuiAltScreen, theme = new ThemeRef(Theme.ansi())): Layout {
	return new Layout({ tui, theme, keys: () => [], keyText: () => "", setProgress() {} });
}

export function testGuest(options: TestGuestOptions = {}): TestGuest {
	const tui = new TuiAltScreen(new FakeTerminal(80, 24), false, undefined, { mouse: false });
	const theme = new ThemeRef(Theme.ansi());
	const layout = testLayout(tui, theme);
	const notices: TestGuest["notices"] = [];
	const requests: TestGuest["requests"] = [];
	const opened: string[] = [];
	const client = new ObjectClient();
	let editor = "";
	const screen = {
		root: new Container(),
		inputTarget: (): Component => screen.root,
		notice: (text: string, tone: NoticeTone) => void notices.push({ text, tone }),
		block: (title: string, markdown: string) => void notices.push({ text: `${title}\n${markdown}`, tone: "status" }),
		editorText: () => editor,
		setEditorText: (text: string) => {
			editor = text;
		},
	};
	layout.mount(screen);
	const session = new OpenSession((error) => {
		throw error;
	});
	if (options.identity) session.setIdentity(options.identity);
	const open = <C extends AnyContract>(contract: C, input: InputOf<C>): ObjectRef<C> => {
		opened.push(contract.name);
		return options.open ? options.open(contract, input) : client.open(contract, input);
	};
	const ctx: GuestContext = {
		start: { ...TEST_START, ...options.start },
		ui: layout,
		session,
		objects: {
			open,
			follow: (contract, inputFor, options) => new FollowedObject(open, session, contract, inputFor, options),
			connection: "open",
			onConnection: () => () => {},
		},
		launcher: {
			request: async (action, payload) => {
				requests.push({ action, payload });
				return options.answer ? options.answer(action, payload) : { ok: false, error: "declined" };
			},
			answer: () => () => {},
			on: () => () => {},
		},
		images: new InlineImages({ post: () => {} }, undefined),
		commands: new CommandRegistry(() => session.role),
		registries: {
			toolRenderers: new ToolRenderers(),
			entryRenderers: new EntryRenderers(arktypeChecks),
			markdownTransformers: new MarkdownTransformers(),
			slots: layout.slots,
			completions: new Completions(),
			addContexts: () => () => {},
			addInputListener: () => () => {},
		},
		services: new Services(),
		preferences: {
			effective: () => effectivePreferences(undefined, undefined),
			onChange: () => () => {},
			setServerDefaults() {},
			setForRun() {},
		},
		snapshot: { restored: undefined, contribute: () => () => {} },
	};
	return { ctx, layout, notices, requests, opened };
}

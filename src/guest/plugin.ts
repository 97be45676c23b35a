/**
 * The guest's plugin surface: each plugin's TUI part (`src/plugins/<name>/tui.ts`) exports a `GuestPlugin`,
 * and `register` receives one `GuestContext`: the screen, the open session, the server's objects, the
 * launcher, the commands and the registries. What it registers it removes in the disposer it returns.
 */
import type { ConnectionState, StartData } from "../protocol/channel.ts";
import type { AnyContract, InputOf } from "../protocol/contract.ts";
import type { ObjectRef } from "../protocol/object-client.ts";
import type { DisplaySettings } from "../protocol/preferences.ts";
import type { CommandRegistry } from "./commands.ts";
import type { Completions } from "./completions.ts";
import type { Followed, FollowOptions, InputFor } from "./follow.ts";
import type { InlineImages } from "./inline-images.ts";
import type { Launcher } from "./launcher-channel.ts";
import type { GuestUi } from "./layout.ts";
import type { EffectivePreferences, ServerDefaults } from "./preferences.ts";
import type { EntryRenderers, MarkdownTransformers, Slots, ToolRenderers } from "./registries.ts";
import type { Services } from "./services.ts";
import type { OpenSession } from "./session.ts";
import type { ReloadSnapshot } from "./snapshot.ts";

export interface GuestPlugin {
	readonly name: string;
	register(ctx: GuestContext): () => void;
}

/** The server's objects: open one of a contract's (the server decides whether this person may). */
export interface GuestObjects {
	open<C extends AnyContract>(contract: C, input: InputOf<C>): ObjectRef<C>;
	/**
	 * The contract's object for the open session: `inputFor` names it for the session and role on screen (or
	 * undefined for none); it is opened, closed and opened again as they change. `close()` stops following.
	 * `lazy`: opened only at its first `use()` for each session (a panel's command, a completion).
	 */
	follow<C extends AnyContract>(contract: C, inputFor: InputFor<C>, options?: FollowOptions): Followed<C>;
	/** The launcher's connection to the server. */
	readonly connection: ConnectionState;
	onConnection(listener: (state: ConnectionState) => void): () => void;
}

/** Names for the keys' `when` contexts (`editorEmpty`, `busy`), added to the core's own on every key. */
export type ContextProvider = (contexts: Set<string>) => void;

export interface GuestRegistries {
	readonly toolRenderers: ToolRenderers;
	readonly entryRenderers: EntryRenderers;
	readonly markdownTransformers: MarkdownTransformers;
	readonly slots: Slots;
	readonly completions: Completions;
	addContexts(provider: ContextProvider): () => void;
	/** Sees every key before the focused component; `consume` keeps it from going further. */
	addInputListener(listener: (data: string) => { consume?: boolean; data?: string } | undefined): () => void;
}

export interface GuestPreferences {
	/** What is in effect: the server's defaults under the person's own. */
	effective(): EffectivePreferences;
	onChange(listener: () => void): () => void;
	/** The server's defaults for its UI (its tui.json). */
	setServerDefaults(defaults: ServerDefaults): void;
	/**
	 * A display setting a key changed (pi's Ctrl+T, which pi saves): in effect for this run, and what /settings
	 * shows, until a file changes that setting.
	 */
	setForRun(settings: DisplaySettings): void;
}

/** What survives a reload: the previous worker's snapshot, and each plugin's part of the next one. */
export interface GuestSnapshot {
	readonly restored: ReloadSnapshot | undefined;
	contribute(part: () => Partial<Omit<ReloadSnapshot, "version" | "session">>): () => void;
}

export interface GuestContext {
	/** What the launcher shared at start: the server's origin, the command line, this device's directories. */
	readonly start: StartData;
	readonly ui: GuestUi;
	readonly session: OpenSession;
	readonly objects: GuestObjects;
	readonly launcher: Launcher;
	/** Images drawn by the launcher: the protocol it draws with (none: text placeholders), and where they stand. */
	readonly images: Pick<InlineImages, "protocol" | "onChange" | "markers" | "want" | "refused">;
	readonly commands: CommandRegistry;
	readonly registries: GuestRegistries;
	readonly services: Services;
	readonly preferences: GuestPreferences;
	readonly snapshot: GuestSnapshot;
}

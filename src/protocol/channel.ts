import { type } from "./ark.ts";
import { ThinkingLevel } from "./common.ts";
import { lazy } from "./lazy.ts";
import { Preferences } from "./preferences-schema.ts";

/**
 * The only channel between the launcher and the guest worker. The launcher validates every worker message
 * against `WorkerMessage` (the worker runs the server's code, so it is untrusted); the worker's bootstrap
 * checks kinds and sizes only (`channel-kinds.ts`), so that it starts without building these schemas.
 */

import {
	MAX_COPY_CHARS,
	MAX_EXIT_TEXT_CHARS,
	MAX_FRAME_CHARS,
	MAX_IMAGE_BASE64_CHARS,
	MAX_IMAGE_PLACEMENTS,
	MAX_LOG_CHARS,
	MAX_OUTPUT_CHARS,
	MAX_SNAPSHOT_CHARS,
} from "./channel-kinds.ts";

export { MAX_EXIT_TEXT_CHARS, MAX_FRAME_CHARS, MAX_LOG_CHARS, MAX_OUTPUT_CHARS, MAX_SNAPSHOT_CHARS };

export const Capabilities = lazy(() =>
	type({
		kittyProtocol: "boolean",
		modifyOtherKeys: "boolean",
		trueColor: "boolean",
		/** OSC 8 hyperlinks reach the screen (pi's detection and overrides, decided by the launcher). */
		"hyperlinks?": "boolean",
		platform: "'linux' | 'darwin' | 'win32' | 'other'",
		/** pi's Windows key defaults (Windows, and WSL as pi detects it). */
		windowsKeys: "boolean",
		/** The graphics protocol the launcher draws the UI's images with; absent: the UI shows text placeholders. */
		"images?": "'kitty' | 'iterm2'",
	}),
);
export type Capabilities = typeof Capabilities.infer;

const Rgb = lazy(() =>
	type({ r: "0 <= number.integer <= 255", g: "0 <= number.integer <= 255", b: "0 <= number.integer <= 255" }),
);
export const TerminalColors = lazy(() =>
	type({
		"foreground?": Rgb,
		"background?": Rgb,
		"palette?": Rgb.array().atMostLength(16),
		/** Light or dark, as the terminal last reported it (mode 2031), else as `COLORFGBG` suggests. */
		"scheme?": "'dark' | 'light'",
	}),
);
export type TerminalColors = typeof TerminalColors.infer;

export const ConnectionState = lazy(() => type("'connecting' | 'open' | 'closed'"));
export type ConnectionState = typeof ConnectionState.infer;

/** What the guest learns at start: only facts the launcher chose to share. */
export const StartData = lazy(() =>
	type({
		/** The server's origin, as the launcher connects to it (never with credentials). */
		origin: "string <= 2048",
		columns: "1 <= number.integer <= 10000",
		rows: "1 <= number.integer <= 10000",
		capabilities: Capabilities,
		"terminalColors?": TerminalColors,
		/** A few terminal facts pi-tui reads from the environment (TERM, TERM_PROGRAM, COLORTERM, multiplexers). */
		env: "Record<string, string <= 256>",
		mouse: "'off' | 'on' | 'all'",
		/**
		 * Only for this device's server, whose tools run on this machine: the directory p2 was started in (new
		 * sessions start there) and the home directory (shown as `~`). A remote server never learns local paths.
		 */
		"local?": { cwd: "string <= 4096", home: "string <= 4096" },
		/** How the launcher signed in: with this device's token, or an owner's cookie. The server still decides. */
		"signedInAs?": "'device' | 'owner' | 'guest'",
		args: {
			verbose: "boolean",
			draft: "string <= 65536",
			/** `@file` arguments as the person typed them: offered to attach (the launcher asks) once a session opens. */
			"files?": type("string <= 4096").array().atMostLength(20),
			/** `--models`: pi's cycling scope for this run, as patterns (the server resolves them). */
			"models?": type("string <= 256").array().atMostLength(200),
			"session?": "string <= 256",
			"fork?": "string <= 64",
			continue: "boolean",
			resume: "boolean",
			/** The session this person last had open on this server (a remote one), remembered by the launcher. */
			"lastSession?": "string <= 64",
			/** For the session that opens (owner): `provider/id` or an id, its provider, a level, a title. */
			"model?": "string <= 256",
			"provider?": "string <= 128",
			"thinking?": ThinkingLevel,
			"name?": "string <= 200",
			/** `--theme` for this run: `system`, `dark`, `light` (custom themes arrive with the preferences). */
			"theme?": "string <= 64",
			/** `--tui-mode` for this run: pi's renderer (the tuiMode setting otherwise). */
			"tuiMode?": "'fullscreen' | 'regular'",
		},
		/** The person's keys, theme and display settings, read by the launcher (also sent again on change). */
		"preferences?": Preferences,
		/** The previous worker's reload snapshot, handed over unchanged. */
		"snapshot?": `string <= ${MAX_SNAPSHOT_CHARS}`,
		/** Why this worker started: first start, a reload, or a restart after a crash. */
		reason: "'start' | 'reload' | 'restart'",
	}),
);
export type StartData = typeof StartData.infer;

export const LauncherMessage = lazy(() =>
	type.or(
		/** Sent as soon as the launcher has the bundle: evaluating it runs beside the launcher's own start. */
		{ kind: "'load'", bundle: "string" },
		{ kind: "'init'", start: StartData },
		{ kind: "'input'", data: "string" },
		{ kind: "'resize'", columns: "number.integer", rows: "number.integer" },
		{ kind: "'frame'", text: "string" },
		{ kind: "'connection'", state: ConnectionState },
		{ kind: "'capabilities'", capabilities: Capabilities },
		{ kind: "'terminalColors'", colors: TerminalColors },
		{ kind: "'redraw'" },
		/**
		 * `handover`: a successor takes over from this snapshot (a reload). In regular mode the UI writes nothing
		 * more (the successor draws on from the scrollback as it is), until a `redraw` if the swap fails.
		 */
		{ kind: "'snapshotRequest'", "handover?": "true" },
		{ kind: "'preferences'", preferences: Preferences },
		/** The launcher asks for what one of its own keys needs: the text to copy, or the editor's text. */
		{ kind: "'ask'", id: "string <= 64", question: "'copyText' | 'editorText'" },
		/** The external editor's result, for the editor (dropped by the launcher after a swap or navigation). */
		{ kind: "'editorResult'", text: "string" },
		/** A file the launcher uploaded on one of its own keys (a pasted image), for the composer. */
		{
			kind: "'attached'",
			file: { id: "string <= 64", name: "string <= 255", size: "number", mimeType: "string <= 100" },
		},
		/** How one of the launcher's keys went, for the UI's status line. */
		{
			kind: "'actionDone'",
			action: "'copy.key' | 'paste.key' | 'editor.external' | 'suspend'",
			ok: "boolean",
			"detail?": "string <= 300",
		},
		/** The answer to a request: done, or refused with a reason the launcher chose to share. */
		{
			kind: "'response'",
			id: "string <= 64",
			ok: "boolean",
			"error?": "string <= 300",
			/** An attached file, as the server took it (never its local path). */
			"attached?": { id: "string <= 64", name: "string <= 255", size: "number", mimeType: "string <= 100" },
			/** A forwarded port's local address (`127.0.0.1:<port>`). */
			"forwarded?": "string <= 64",
		},
		/** An image the UI sent was refused (not a PNG, too large, does not decode): the UI shows its placeholder. */
		{ kind: "'imageRefused'", id: "string <= 64", reason: "string <= 300" },
		{ kind: "'ping'", n: "number.integer" },
	),
);
export type LauncherMessage = typeof LauncherMessage.infer;

/** Launcher actions without a grant ("N", design: launcher actions): sanitized and rate-limited by the launcher. */
export const StatusAction = lazy(() =>
	type.or(
		{ kind: "'title'", text: "string <= 4096" },
		{ kind: "'progress'", active: "boolean" },
		{ kind: "'programStatus'", status: "'idle' | 'working' | 'blocked' | 'done' | 'error' | 'clear'" },
	),
);
export type StatusAction = typeof StatusAction.infer;

export const ImagePlacement = lazy(() =>
	type({
		id: "string <= 64",
		row: "0 <= number.integer <= 10000",
		col: "0 <= number.integer <= 10000",
		columns: "1 <= number.integer <= 10000",
		rows: "1 <= number.integer <= 10000",
	}),
);
export type ImagePlacement = typeof ImagePlacement.infer;

export const WorkerMessage = lazy(() =>
	type.or(
		{ kind: "'ready'" },
		/** The UI asks for a fresh bundle (/reload): the launcher swaps workers, carrying the snapshot over. */
		{ kind: "'reload'" },
		{ kind: "'output'", data: `string <= ${MAX_OUTPUT_CHARS}` },
		{ kind: "'frame'", text: `string <= ${MAX_FRAME_CHARS}` },
		{ kind: "'status'", action: StatusAction },
		{ kind: "'log'", level: "'info' | 'warn' | 'error'", text: `string <= ${MAX_LOG_CHARS}` },
		{ kind: "'snapshot'", data: `string <= ${MAX_SNAPSHOT_CHARS}` },
		/**
		 * Sent just before `exit`: what to leave on the terminal (pi's fullscreenExitOutput). `text` is the
		 * transcript as lines (empty for pi's resume-hint); `resumable`: the session has something to resume.
		 * The launcher prints it after restoring the terminal, SGR only, every other control made visible.
		 */
		{ kind: "'exitOutput'", text: `string <= ${MAX_EXIT_TEXT_CHARS}`, resumable: "boolean" },
		{ kind: "'exit'", code: "0 <= number.integer <= 255" },
		{ kind: "'pong'", n: "number.integer", "heapBytes?": "number" },
		{ kind: "'error'", message: `string <= ${MAX_LOG_CHARS}` },
		/** The session the UI shows now: the launcher remembers it for the next start on this server. */
		{ kind: "'navigation'", session: "string <= 64" },
		/** An action only the launcher can take, on its own consent screen ("C", design: launcher actions). */
		{ kind: "'request'", id: "string <= 64", action: "'savePrefs'", payload: { patch: "Record<string, unknown>" } },
		{
			kind: "'request'",
			id: "string <= 64",
			action: "'copy'",
			payload: { text: `string <= ${MAX_COPY_CHARS}`, "label?": "string <= 200" },
		},
		{ kind: "'request'", id: "string <= 64", action: "'openUrl'", payload: { url: "string <= 2048" } },
		/** A page of the server's own (an artifact), opened on the launcher's origin; the browser signs in on its own. */
		{
			kind: "'request'",
			id: "string <= 64",
			action: "'openUrl'",
			payload: { kind: "'origin'", path: "string <= 2048" },
		},
		/** A local file for the next message: the launcher names it, asks, and uploads it to the open session. */
		{ kind: "'request'", id: "string <= 64", action: "'attach'", payload: { path: "string <= 4096" } },
		/** A file sent to the session on screen, saved into the person's download folder after they said yes. */
		{
			kind: "'request'",
			id: "string <= 64",
			action: "'download'",
			payload: { session: "string <= 64", id: "string <= 64", name: "string <= 255", size: "number" },
		},
		/** An artifact of the session on screen (one version), saved the same way. */
		{
			kind: "'request'",
			id: "string <= 64",
			action: "'download'",
			payload: {
				kind: "'artifact'",
				session: "string <= 64",
				name: "string <= 255",
				version: "number.integer >= 1",
				size: "number",
			},
		},
		/**
		 * A port of the server's machine opened on this computer's loopback (the open session's environment),
		 * after the launcher asked; the answer names the local address.
		 */
		{ kind: "'request'", id: "string <= 64", action: "'forward'", payload: { port: "1 <= number.integer <= 65535" } },
		/** Ends a forward this launcher opened, by its local port. */
		{ kind: "'request'", id: "string <= 64", action: "'forward'", payload: { close: "1 <= number.integer <= 65535" } },
		/** Ends this device's owner sign-in on a remote server (or every owner's): the launcher asks first. */
		{ kind: "'request'", id: "string <= 64", action: "'signOut'", payload: { all: "boolean" } },
		/** pi-tui's copy on select: granted only by the mouse gesture the launcher itself saw. */
		{
			kind: "'request'",
			id: "string <= 64",
			action: "'copy.selection'",
			payload: { text: `string <= ${MAX_COPY_CHARS}` },
		},
		/** An image for the launcher to draw (a PNG, base64), under an id the UI keeps for the same image. */
		{ kind: "'image'", id: "string <= 64", png: `string <= ${MAX_IMAGE_BASE64_CHARS}` },
		/**
		 * Where the images fully visible on the UI's screen stand after its latest frame (0-based cells); sent after
		 * a frame that moved, covered or uncovered one. The launcher draws them, and takes the earlier ones away.
		 */
		{ kind: "'imagePlacements'", placements: ImagePlacement.array().atMostLength(MAX_IMAGE_PLACEMENTS) },
		/** While the UI's own text input needs every key (a search, a dialog): the launcher takes none of them. */
		{ kind: "'keyContext'", suspendPrivileged: "boolean" },
		/** The answer to the launcher's question (`ask`): the text it asked for, or null for none. */
		{ kind: "'answer'", id: "string <= 64", text: `string <= ${MAX_COPY_CHARS} | null` },
	),
);
export type WorkerMessage = typeof WorkerMessage.infer;

/** What the bundle must define: `globalThis.p2Guest = { start(host) }`. */
export interface GuestHost {
	/** Posts a message to the launcher. Throws on something that is not a plain message. */
	post(message: WorkerMessage): void;
	/** Receives the launcher's messages (after `init`). One handler; a second call replaces it. */
	onMessage(handler: (message: LauncherMessage) => void): void;
	readonly start: StartData;
}

export interface GuestEntry {
	start(host: GuestHost): void;
}

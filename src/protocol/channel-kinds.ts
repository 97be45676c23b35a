/**
 * The channel's kinds and limits as plain data, for the worker's bootstrap: it checks what it relays without
 * loading a schema library (that would delay every start). The launcher validates everything the worker posts
 * against the full schemas in `channel.ts`; a test keeps these lists equal to them.
 */
export const MAX_OUTPUT_CHARS = 1024 * 1024;
export const MAX_FRAME_CHARS = 1024 * 1024;
/** The largest frame a server may send (a snapshot of a long transcript); the launcher relays none larger. */
export const MAX_SERVER_FRAME_CHARS = 8 * MAX_FRAME_CHARS;
export const MAX_LOG_CHARS = 4096;
export const MAX_SNAPSHOT_CHARS = 1024 * 1024;
/** Text the launcher copies or hands to the external editor. */
export const MAX_COPY_CHARS = 1024 * 1024;
/** The transcript the UI leaves on the terminal when it exits (pi's fullscreenExitOutput). */
export const MAX_EXIT_TEXT_CHARS = 512 * 1024;
/**
 * What the worker's bootstrap lets through in one second, whatever the guest posts; the rest is dropped in the
 * worker. Well above the launcher's own budgets (which say what was dropped), it bounds what can queue up on
 * the launcher's side of the channel: a queue of large messages left there stalls the launcher's thread for
 * seconds when the worker is ended (seen with Bun 1.4.5).
 */
export const WORKER_FLOOD_LIMITS = { messages: 10_000, chars: 32 * 1024 * 1024 } as const;

export const WORKER_MESSAGE_KINDS: readonly string[] = [
	"ready",
	"reload",
	"output",
	"frame",
	"status",
	"log",
	"snapshot",
	"exit",
	"pong",
	"error",
	"request",
	"navigation",
	"keyContext",
	"answer",
	"exitOutput",
	"image",
	"imagePlacements",
];

export const LAUNCHER_MESSAGE_KINDS: readonly string[] = [
	"load",
	"init",
	"input",
	"resize",
	"frame",
	"connection",
	"capabilities",
	"terminalColors",
	"redraw",
	"snapshotRequest",
	"preferences",
	"response",
	"ask",
	"editorResult",
	"actionDone",
	"attached",
	"imageRefused",
	"ping",
];

/** An image the UI sends for the launcher to draw: a PNG of at most this many bytes and pixels a side. */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
export const MAX_IMAGE_SIDE = 4096;
/** The same limit as base64 text, as it travels. */
export const MAX_IMAGE_BASE64_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;
/** Images placed on one screen. */
export const MAX_IMAGE_PLACEMENTS = 32;

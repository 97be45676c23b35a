/** Every reason the server or the client gives for refusing something, defined once. */
export const REFUSAL_CODES = {
	bad_frame: "The frame is not valid JSON or not a known frame shape.",
	too_large: "The frame is larger than allowed.",
	rate_limited: "Too many frames; slow down.",
	unknown_object: "No such object.",
	unsupported_version: "This version of the object is not supported.",
	bad_input: "The object's input does not match its contract.",
	forbidden: "Your access does not allow this.",
	not_found: "Not found.",
	unknown_handle: "No object is open under this handle.",
	handle_in_use: "This handle is already open.",
	unknown_method: "No such method.",
	bad_args: "The arguments do not match the method's contract.",
	bad_state: "The object's state does not match its contract.",
	conflict: "The request conflicts with the current state.",
	busy: "The object is busy.",
	unavailable: "Not available right now.",
	internal: "Internal error.",
} as const;

export type RefusalCode = keyof typeof REFUSAL_CODES;

/** The one error type objects throw; the host turns it into a refusal frame and never leaks anything else. */
export class ProtocolError extends Error {
	readonly code: RefusalCode;
	constructor(code: RefusalCode, message: string = REFUSAL_CODES[code]) {
		super(message);
		this.name = "ProtocolError";
		this.code = code;
	}
}

export function toProtocolError(error: unknown): ProtocolError {
	if (error instanceof ProtocolError) return error;
	return new ProtocolError("internal");
}

/**
 * Why the server closed a WebSocket (4000–4999 are the application's). The launcher reconnects after any
 * close and every object comes back as a fresh snapshot; on `accessEnded` the reconnect is refused and the
 * launcher says the person was signed out.
 */
export const CLOSE_CODES = {
	/** The principal was signed out, removed or blocked. */
	accessEnded: 4401,
	/** The client read too slowly and too much waited for it: nothing was dropped, the socket was closed instead. */
	tooSlow: 4008,
	/** A guest went on sending past their frame budget however many were dropped; the reason says whose budget. */
	tooManyFrames: 4429,
} as const;

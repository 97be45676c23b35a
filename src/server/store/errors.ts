/** Base class of everything the store throws on purpose, so callers can tell our errors from bugs. */
export class StoreError extends Error {
	override name = "StoreError";
}

/** A file could not be opened as a store: not a database, made by a newer p2, unreadable. */
export class StoreOpenError extends StoreError {
	override name = "StoreOpenError";
}

/** The file is not a usable store: empty, not a database, or damaged. It is moved aside, never overwritten. */
export class StoreDamagedError extends StoreOpenError {
	override name = "StoreDamagedError";
	readonly path: string;
	/** What is wrong, for a person: "the file is empty", "file is not a database". */
	readonly reason: string;

	constructor(path: string, reason: string) {
		super(`${path} is damaged (${reason})`);
		this.path = path;
		this.reason = reason;
	}
}

/** A row read back does not have the shape we wrote: the file was damaged or edited by hand. */
export class StoreCorruptError extends StoreError {
	override name = "StoreCorruptError";
}

/** A write was refused because the disk (or the file's quota) is full; the write was rolled back whole. */
export class StoreFullError extends StoreError {
	override name = "StoreFullError";

	constructor(path: string) {
		super(`The server's disk is full (${path} could not be written). Free some space on the server, then try again.`);
	}
}

export class StoreClosedError extends StoreError {
	override name = "StoreClosedError";
}

/** A retried request: the row that the first attempt stored is in `existing`, nothing new was written. */
export class DuplicateRequestError<T> extends StoreError {
	override name = "DuplicateRequestError";
	readonly existing: T;

	constructor(message: string, existing: T) {
		super(message);
		this.existing = existing;
	}
}

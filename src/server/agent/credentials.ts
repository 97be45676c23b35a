import { readFileSync } from "node:fs";
import type { AuthOperationOptions, Credential, CredentialInfo, CredentialStore } from "@earendil-works/pi-ai";
import { writePrivateFile } from "../store/data-dir.ts";

/** pi's `auth.json` shape: one credential per provider id. */
export const AUTH_FILE = "auth.json";

/**
 * The server's sign-ins, in `<data>/auth.json` (0600, written by rename). Credentials never leave the server:
 * only pi-ai reads them, to sign requests. Writes are serialized per provider, as pi-ai's contract asks; a file
 * that cannot be read is reported and left alone (nothing is written over it).
 */
export class FileCredentialStore implements CredentialStore {
	readonly #path: string;
	#data: Record<string, Credential> = {};
	#problem: string | undefined;
	#chain: Promise<unknown> = Promise.resolve();

	constructor(path: string) {
		this.#path = path;
		this.#load();
	}

	problems(): string[] {
		return this.#problem ? [this.#problem] : [];
	}

	#load(): void {
		let text: string;
		try {
			text = readFileSync(this.#path, "utf8");
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.#problem = `${AUTH_FILE}: cannot be read`;
			return;
		}
		try {
			const json = JSON.parse(text) as unknown;
			if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not an object");
			const data: Record<string, Credential> = {};
			for (const [id, value] of Object.entries(json as Record<string, unknown>)) {
				const type = (value as { type?: unknown } | null)?.type;
				if (type === "api_key" || type === "oauth") data[id] = value as Credential;
			}
			this.#data = data;
		} catch {
			this.#problem = `${AUTH_FILE}: not valid JSON; sign-ins are not saved until it is fixed`;
		}
	}

	#save(): void {
		if (this.#problem) throw new Error(this.#problem);
		writePrivateFile(this.#path, `${JSON.stringify(this.#data, null, 2)}\n`);
	}

	#serial<T>(work: () => Promise<T>): Promise<T> {
		const next = this.#chain.then(work, work);
		this.#chain = next.catch(() => undefined);
		return next;
	}

	async read(providerId: string, options?: AuthOperationOptions): Promise<Credential | undefined> {
		options?.signal?.throwIfAborted();
		return this.#data[providerId];
	}

	async list(options?: AuthOperationOptions): Promise<readonly CredentialInfo[]> {
		options?.signal?.throwIfAborted();
		return Object.entries(this.#data).map(([providerId, c]) => ({ providerId, type: c.type }));
	}

	modify(
		providerId: string,
		fn: (current: Credential | undefined) => Promise<Credential | undefined>,
		options?: AuthOperationOptions,
	): Promise<Credential | undefined> {
		return this.#serial(async () => {
			options?.signal?.throwIfAborted();
			const next = await fn(this.#data[providerId]);
			if (next === undefined) return this.#data[providerId];
			const before = this.#data;
			this.#data = { ...before, [providerId]: next };
			try {
				this.#save();
			} catch (error) {
				this.#data = before;
				throw error;
			}
			return next;
		});
	}

	delete(providerId: string, options?: AuthOperationOptions): Promise<void> {
		return this.#serial(async () => {
			options?.signal?.throwIfAborted();
			if (!(providerId in this.#data)) return;
			const before = this.#data;
			const { [providerId]: _removed, ...rest } = before;
			this.#data = rest;
			try {
				this.#save();
			} catch (error) {
				this.#data = before;
				throw error;
			}
		});
	}
}

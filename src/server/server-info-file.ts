/**
 * `server.json` in the data directory: how this device's launchers find the server (its origin and device
 * token, 0600). Removed when the server stops, unless another server has replaced it since.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SERVER_INFO_FILE, type ServerInfo } from "../protocol/server-info.ts";
import { writePrivateFile } from "./store/data-dir.ts";

export class ServerInfoFile {
	readonly #path: string;
	readonly #deviceToken: string;

	constructor(dataDir: string, deviceToken: string) {
		this.#path = join(dataDir, SERVER_INFO_FILE);
		this.#deviceToken = deviceToken;
	}

	write(info: ServerInfo): void {
		writePrivateFile(this.#path, `${JSON.stringify(info)}\n`);
	}

	remove(): void {
		if (!existsSync(this.#path)) return;
		try {
			if (JSON.parse(readFileSync(this.#path, "utf8")).deviceToken === this.#deviceToken) rmSync(this.#path);
		} catch {
			// Another server replaced it; leave theirs.
		}
	}
}

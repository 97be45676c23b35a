/**
 * `p2 update [--from <release location>]`: the location is `--from`, else `$P2_RELEASES`. Only an installed
 * executable updates itself; from source, git does.
 */

import pkg from "../package.json" with { type: "json" };
import { askToMakeWay } from "./host/device-server.ts";
import { EMBEDDED_ROOT } from "./host/embedded-root.ts";
import { findLocalServer } from "./host/local-server.ts";
import { releasePlatform, UpdateError, updateExecutable } from "./host/update.ts";
import { terminalLine } from "./host/visible-text.ts";
import { buildId } from "./server/build-id.ts";
import { resolveDataDir } from "./server/store/data-dir.ts";
import { buildCommit } from "./version.ts";

export const UPDATE_HELP = `p2 update [--from <url>]: replace this p2 with the release at <url> (or $P2_RELEASES), after checking its checksum`;

export async function updateCommand(args: readonly string[]): Promise<number> {
	let from = process.env.P2_RELEASES;
	for (let i = 0; i < args.length; i++) {
		const arg = args[i]!;
		if (arg === "--from" && i + 1 < args.length) from = args[++i];
		else if (arg.startsWith("--from=")) from = arg.slice("--from=".length);
		else if (arg === "--help" || arg === "-h") {
			console.log(UPDATE_HELP);
			return 0;
		} else {
			console.error(`p2 update: unknown argument ${terminalLine(arg)}\n${UPDATE_HELP}`);
			return 2;
		}
	}
	if (EMBEDDED_ROOT === undefined) {
		console.error(
			"p2 update: this p2 runs from source; update it with git (p2 update replaces an installed executable)",
		);
		return 2;
	}
	if (!from) {
		console.error("p2 update: no release location: pass --from <url> or set P2_RELEASES");
		return 2;
	}
	const platform = releasePlatform();
	if (!platform) {
		console.error(`p2 update: p2 is not released for ${process.platform}-${process.arch}`);
		return 1;
	}
	const dataDir = resolveDataDir(process.env);
	const ownBuild = buildId();
	try {
		const result = await updateExecutable({
			from,
			executable: process.execPath,
			platform,
			current: { version: pkg.version, commit: buildCommit() },
			// Only a server this executable started runs the code being replaced.
			findOwnServer: async () => {
				const info = await findLocalServer(dataDir);
				return info && info.build === ownBuild ? info : undefined;
			},
			askToMakeWay,
		});
		if (result.kind === "current") console.log(`p2 ${result.version} (commit ${result.commit}) is up to date`);
		else console.log(`p2 updated: ${terminalLine(result.said)}`);
		return 0;
	} catch (error) {
		if (!(error instanceof UpdateError)) throw error;
		console.error(`p2 update: ${terminalLine(error.message)}`);
		return 1;
	}
}

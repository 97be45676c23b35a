import { existsSync, type FSWatcher, watch } from "node:fs";
import { dirname } from "node:path";

/**
 * Calls `onChange` once a burst of changes under any of `dirs` has settled. A directory that exists is watched
 * with everything under it (skills are found recursively); one that does not exist yet is seen coming through
 * its nearest existing parent, and the caller then watches again (`rewatch`). Returns the stop function.
 */
export function watchDirs(dirs: readonly string[], onChange: () => void, settleMs = 80): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const watchers: FSWatcher[] = [];
	const fire = () => {
		clearTimeout(timer);
		timer = setTimeout(onChange, settleMs);
	};
	const targets = new Map<string, boolean>();
	for (const dir of dirs) {
		if (existsSync(dir)) targets.set(dir, true);
		else {
			let parent = dirname(dir);
			while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
			if (!targets.has(parent)) targets.set(parent, false);
		}
	}
	for (const [dir, recursive] of targets) {
		try {
			const watcher = watch(dir, { recursive }, fire);
			watcher.on("error", () => watcher.close());
			watchers.push(watcher);
		} catch {
			// Not watchable (gone in the meantime, no permission): its changes apply on the next load.
		}
	}
	return () => {
		clearTimeout(timer);
		for (const watcher of watchers) watcher.close();
	};
}

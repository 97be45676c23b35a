import { existsSync, type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";

/**
 * Where to watch for `dirs`: a directory that exists, with everything under it (skills are found recursively);
 * for one that does not exist yet, its nearest existing parent, alone, and only the name under that parent on
 * the way to it counts (the server's data directory is such a parent, and it is written all the time).
 * `names` null: every change counts.
 */
export function watchTargets(dirs: readonly string[]): Map<string, { recursive: boolean; names: Set<string> | null }> {
	const targets = new Map<string, { recursive: boolean; names: Set<string> | null }>();
	for (const dir of dirs) {
		if (existsSync(dir)) {
			targets.set(dir, { recursive: true, names: null });
			continue;
		}
		let child = dir;
		let parent = dirname(dir);
		while (!existsSync(parent) && dirname(parent) !== parent) {
			child = parent;
			parent = dirname(parent);
		}
		const target = targets.get(parent) ?? { recursive: false, names: new Set<string>() };
		target.names?.add(basename(child));
		targets.set(parent, target);
	}
	return targets;
}

/**
 * Calls `onChange` once a burst of changes under any of `dirs` has settled; a directory that does not exist yet
 * is seen coming through its nearest existing parent, and the caller then watches again. Returns the stop
 * function.
 */
export function watchDirs(dirs: readonly string[], onChange: () => void, settleMs = 80): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const watchers: FSWatcher[] = [];
	const fire = () => {
		clearTimeout(timer);
		timer = setTimeout(onChange, settleMs);
	};
	for (const [dir, { recursive, names }] of watchTargets(dirs)) {
		try {
			const watcher = watch(dir, { recursive }, (_event, name) => {
				if (!names || name === null || names.has(String(name))) fire();
			});
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

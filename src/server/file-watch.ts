import { type FSWatcher, watch } from "node:fs";
import { errorText } from "../protocol/errors.ts";

/**
 * Calls `onChange` after the file `name` in `dir` is written, created, replaced (an editor's rename) or removed.
 * The directory is watched, not the file, so a file that does not exist yet or is replaced is still seen. A
 * burst of events (one save is often several) becomes one call once `settleMs` passed without another.
 * Returns a function that stops watching; when the directory cannot be watched, nothing is watched.
 */
export function watchFileIn(dir: string, name: string, onChange: () => void, settleMs = 50): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let watcher: FSWatcher | undefined;
	try {
		watcher = watch(dir, (_event, file) => {
			// Some platforms do not name the file; then any change in the directory may be it.
			if (file !== null && file !== name) return;
			clearTimeout(timer);
			timer = setTimeout(onChange, settleMs);
		});
		watcher.on("error", () => watcher?.close());
	} catch (error) {
		console.error(
			`p2 server: ${name} is not watched for changes (${errorText(error)}); restart the server after editing it`,
		);
	}
	return () => {
		clearTimeout(timer);
		watcher?.close();
	};
}

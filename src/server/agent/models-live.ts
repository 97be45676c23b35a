import { errorText } from "../../protocol/errors.ts";
import type { EventBus } from "../events.ts";
import { watchFileIn } from "../file-watch.ts";
import { MODELS_FILE, type ModelCatalog } from "./models.ts";

/**
 * pi lists a new provider's models as soon as models.json is saved: the server watches its own models.json,
 * reads the catalog again and tells the plugins (`models.changed`). A problem the file did not have before is
 * written to the server's log, as at start; the owners' UI shows the catalog's problems. Returns a stop function.
 */
export function keepModelsLive(
	models: ModelCatalog,
	dataDir: string,
	bus: EventBus,
	report: (problem: string) => void = (problem) => console.error(`p2 server: ${problem}`),
): () => void {
	let reloading = false;
	let again = false;
	const reload = async () => {
		if (reloading) {
			again = true;
			return;
		}
		reloading = true;
		try {
			do {
				again = false;
				const known = new Set(models.problems());
				try {
					await models.reload();
				} catch (error) {
					report(`${MODELS_FILE} could not be read again: ${errorText(error)}`);
					continue;
				}
				for (const problem of models.problems()) if (!known.has(problem)) report(problem);
				bus.emit({ type: "models.changed" });
			} while (again);
		} finally {
			reloading = false;
		}
	};
	return watchFileIn(dataDir, MODELS_FILE, () => void reload());
}

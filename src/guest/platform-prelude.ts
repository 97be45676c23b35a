/**
 * Inert stand-ins for web platform classes that libraries in the bundle (arktype's keywords) name at load
 * time. The sandbox has no files, requests or URLs to give; these only make `instanceof` checks answer false.
 * Imported first by the entry, so it runs before those libraries.
 */
const g = globalThis as Record<string, unknown>;
for (const name of ["Blob", "File", "FormData", "Headers", "Request", "Response", "URL"]) {
	if (typeof g[name] !== "function") {
		g[name] = { [name]: class {} }[name];
	}
}

/**
 * What `p2 --version` says: the version, and the commit the executable was built from (set by the build), or
 * that this run is from source.
 */
import pkg from "../package.json" with { type: "json" };

declare const P2_BUILD_COMMIT: string | undefined;

/** The commit an executable was built from; undefined from source. */
export function buildCommit(): string | undefined {
	return typeof P2_BUILD_COMMIT === "string" ? P2_BUILD_COMMIT : undefined;
}

export function versionLine(): string {
	const commit = buildCommit();
	return `p2 ${pkg.version} (${commit ? `commit ${commit}` : "from source"})`;
}

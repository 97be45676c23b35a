/** A size in mebibytes as a person reads it: `4 MiB`, `64.5 MiB`. */
export function mebibytes(bytes: number): string {
	const value = bytes / 1024 / 1024;
	return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}

/**
 * Inside the compiled executable, where its embedded entry points live: modules there are named by absolute
 * paths in the executable's own file system, found from `Bun.main`. `import.meta.url` there is the build
 * machine's source path, and a file at that path (or, for a relative name, in the working directory) would
 * otherwise run with the launcher's or the worker's powers. Undefined when run from source.
 */
export const EMBEDDED_ROOT = /^(\/\$bunfs\/root|B:[\\/]~BUN[\\/]root)[\\/]/.exec(Bun.main)?.[1];

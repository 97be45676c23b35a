/**
 * Runs before `@xterm/headless` in its deferred module: xterm tells Node from a browser by `"title" in process`,
 * and takes anything else for a browser (it reads `navigator` and `window`, which the sandbox has not). The
 * guest's process is Node's kind; this names it so, in the deferred module's own copy of the process shim.
 */
import { process } from "../guest/process-shim.ts";

if (!Object.hasOwn(process, "title")) Object.defineProperty(process, "title", { value: "p2-guest", enumerable: true });

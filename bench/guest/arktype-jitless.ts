// Before arktype loads: in the sandbox it cannot compile (`new Function`), so it runs interpreted.
import { configure } from "arktype/config";

configure({ jitless: true });

// Preloaded with `--import` (through NODE_OPTIONS) into an app process under test: appends every module
// the process loads, ES module or CommonJS (with the file that required it), to the file named by
// MODULE_LOAD_LOG, one per line.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const log = process.env.MODULE_LOAD_LOG;
if (log) {
  register('./record-module-loads-hooks.mjs', import.meta.url, { data: { log } });
  const load = Module._load;
  Module._load = function recordLoad(request, parent, isMain) {
    appendFileSync(log, `require ${request} from ${parent?.filename ?? '(none)'}\n`);
    return load.call(this, request, parent, isMain);
  };
}

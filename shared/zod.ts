// The one zod every contract is built with: zod/mini, whose functions
// tree-shake, so a page carries only the schemas it parses (the probe page's
// whole bundle stays under 30 KB gzipped). Parsers run without JIT: zod's
// object fast path compiles code with `new Function`, which a Content
// Security Policy without 'unsafe-eval' forbids (and reports).
import { z } from "zod/mini";

z.config({ jitless: true });

export { z };

// npm run bundle: src/ (and the @tricktable/client package it is built on) →
// ../../service/web/static/, which `tricktable serve --web-port` serves at /. The output is committed (the quick start needs only Python), so it must not vary from
// one machine to another: no timestamps, no absolute paths, no source maps.
//
// index.html names each file with its content's hash (app.js?v=<hash>): the server lets a
// browser keep such an address for a year (service/web/app.py), and a new build is a new one.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

const out = "../../service/web/static";

// @tricktable/client is a link to ../typescript (a file: dependency, whose own dependencies npm
// leaves to this package). Its modules, like this folder's, take the protocol runtime installed
// here, never a copy in ../typescript/node_modules (there once its own npm ci has run): the
// bundle holds one copy of it, and is the same whichever folders have been installed.
const RUNTIME = /^@(bufbuild\/protobuf|connectrpc\/connect|connectrpc\/connect-web)(\/.*)?$/;
const here = process.cwd();
const oneRuntime = {
  name: "one-protocol-runtime",
  setup(build) {
    build.onResolve({ filter: RUNTIME }, (args) =>
      args.resolveDir === here ? undefined : build.resolve(args.path, { kind: args.kind, resolveDir: here }),
    );
  },
};
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: `${out}/app.js`,
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  plugins: [oneRuntime],
  logLevel: "warning",
});
copyFileSync("src/style.css", `${out}/style.css`);
let page = readFileSync("src/index.html", "utf8");
for (const file of ["app.js", "style.css"]) {
  const hash = createHash("sha256").update(readFileSync(`${out}/${file}`)).digest("hex").slice(0, 16);
  page = page.replace(`"${file}"`, `"${file}?v=${hash}"`);
}
writeFileSync(`${out}/index.html`, page);

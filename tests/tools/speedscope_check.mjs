// Reads a folded file with speedscope's own collapsed-stack importer, taken from the
// installed npm package (npm install -g speedscope), and prints what it imported:
//   node speedscope_check.mjs SPEEDSCOPE_PKG_DIR FILE
//   -> "stacks=N weight=W frames=F" and one "weight<TAB>frame;frame" line per stack.
// The importer is the bundle's function that matches each line with /^(.*) (\d+)$/ and
// splits the stack on ';' (speedscope imports *.collapsedstack.txt and unrecognised text
// with it); it is located by that regex and run on a text object with splitLines().
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [pkg, file] = process.argv.slice(2);
if (!pkg || !file) {
	console.error("usage: node speedscope_check.mjs SPEEDSCOPE_PKG_DIR FILE");
	process.exit(2);
}
const rel = join(pkg, "dist", "release");
const bundle = readdirSync(rel).find((f) => /^speedscope-.*\.js$/.test(f));
if (!bundle) {
	console.error(`no speedscope bundle in ${rel}`);
	process.exit(2);
}
const src = readFileSync(join(rel, bundle), "utf8");
const marker = "/^(.*) (\\d+)$/gm.exec(";
const at = src.indexOf(marker);
const start = at < 0 ? -1 : src.lastIndexOf("function ", at);
if (start < 0) {
	console.error(`${bundle}: collapsed-stack importer not found`);
	process.exit(2);
}
// The function's end: braces balance (its body holds no string or regex with braces).
let depth = 0, end = src.indexOf("{", start);
for (let i = end; i < src.length; i++) {
	if (src[i] === "{") depth++;
	else if (src[i] === "}" && --depth === 0) {
		end = i + 1;
		break;
	}
}
const name = src.slice(start + 9, src.indexOf("(", start));
const importer = new Function(`${src.slice(start, end)}; return ${name};`)();
const text = readFileSync(file, "utf8");
const samples = importer({ splitLines: () => text.split("\n") });
let weight = 0, frames = 0;
const out = [];
for (const s of samples) {
	weight += s.duration;
	frames += s.stack.length;
	out.push(`${s.duration}\t${s.stack.map((f) => f.name).join(";")}`);
}
console.log(`stacks=${samples.length} weight=${weight} frames=${frames}`);
for (const l of out) console.log(l);

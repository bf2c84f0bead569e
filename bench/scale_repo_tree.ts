/**
 * The generated repositories of the repository-size curve (bench/scale_repo.ts): a git
 * repository of `files` files, 60% of them committed under `src/` and 40% in a `.gitignore`d
 * `build/` (the bulk a monorepo's builds leave), 100 files to a folder. Contents come from 256
 * source-like templates, so git stores 256 blobs however many files there are; two templates hold
 * the literal `needle_marker` (grep's target, in about 0.8% of the files) and one file in 100 is
 * named `*_spec.rb` (glob's target). The same size gives the same bytes on every run.
 * @module
 */
import { join } from "node:path";
import { seededRandom } from "../tests/support/seeded_random.ts";

/** What grep looks for: in two of the 256 templates. */
export const NEEDLE = "needle_marker";
/** What glob looks for: one file in {@link FILES_PER_DIR}. */
export const SPEC_GLOB = "*_spec.rb";
const FILES_PER_DIR = 100;
const TEMPLATES = 256;
const NEEDLE_TEMPLATES = 2;
const TRACKED_SHARE = 0.6;
const EXTENSIONS = ["ts", "py", "go", "md", "json"];
const WORDS = ("alpha beta gamma delta request response handler parser token stream buffer " +
  "config session cache index value result error retry timeout worker queue render layout " +
  "model client server socket packet header body length offset cursor window vector kernel")
  .split(" ");

/** What was generated. */
export interface RepoTree {
  root: string;
  files: number;
  tracked: number;
  bytes: number;
}

/** Source-like templates of 20 to 60 lines; the first {@link NEEDLE_TEMPLATES} hold the needle. */
function templates(): Uint8Array[] {
  const next = seededRandom(26);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const encoder = new TextEncoder();
  return Array.from({ length: TEMPLATES }, (_, t) => {
    const lines = Array.from({ length: 20 + Math.floor(next() * 40) }, () => {
      const indent = "  ".repeat(Math.floor(next() * 3));
      return next() < 0.2
        ? `${indent}// ${pick()} ${pick()} ${pick()} ${pick()}`
        : `${indent}let ${pick()}_${pick()} = ${pick()}(${pick()}, ${Math.floor(next() * 1e6)});`;
    });
    if (t < NEEDLE_TEMPLATES) lines[Math.floor(lines.length / 2)] = `// ${NEEDLE} ${t}`;
    return encoder.encode(lines.join("\n") + "\n");
  });
}

/** Writes `count` files into folders `<top>/p<i>/m<j>/`; returns their bytes. */
function writeFiles(root: string, top: string, count: number, bodies: Uint8Array[]): number {
  const leaves = Math.ceil(count / FILES_PER_DIR);
  const perGroup = Math.ceil(Math.sqrt(leaves));
  let bytes = 0;
  for (let leaf = 0, written = 0; leaf < leaves; leaf++) {
    const dir = join(root, top, `p${Math.floor(leaf / perGroup)}`, `m${leaf % perGroup}`);
    Deno.mkdirSync(dir, { recursive: true });
    for (let k = 0; k < FILES_PER_DIR && written < count; k++, written++) {
      const body = bodies[(leaf * 7919 + k * 104_729) % TEMPLATES]!;
      const name = k === 0 ? `f${k}_spec.rb` : `f${k}.${EXTENSIONS[k % EXTENSIONS.length]}`;
      Deno.writeFileSync(join(dir, name), body);
      bytes += body.length;
    }
  }
  return bytes;
}

/** Runs git in `root`, failing with its words. */
async function git(root: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/**
 * The repository of `files` files under `root`, made unless a finished one is there already
 * (a marker file, written last, says so).
 */
export async function repoTree(root: string, files: number): Promise<RepoTree> {
  const marker = join(root, ".git", "scale_repo_tree.json");
  try {
    return JSON.parse(await Deno.readTextFile(marker));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await Deno.remove(root, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  Deno.mkdirSync(root, { recursive: true });
  const bodies = templates();
  const tracked = Math.round(files * TRACKED_SHARE);
  Deno.writeTextFileSync(join(root, ".gitignore"), "build/\n*.log\n");
  let bytes = writeFiles(root, "src", tracked, bodies);
  bytes += writeFiles(root, "build", files - tracked, bodies);
  await git(root, "init", "-q");
  await git(root, "add", "-A");
  await git(root, "commit", "-q", "-m", `${files} generated files`);
  const tree: RepoTree = { root, files, tracked, bytes };
  await Deno.writeTextFile(marker, JSON.stringify(tree));
  return tree;
}

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * No two files import each other, directly or round a longer loop, in any of the project's code (the daemon, the
 * simulators, the console, the benchmarks, the scripts and the tests). A file on a loop cannot be read, tested or
 * loaded without all the others; most loops are a type declared in the wrong file, and the fix is to move it to a
 * file both can import. Type-only imports (`import type`, a JSDoc `import('…')`) count: they are the usual start.
 * architecture.spec.ts keeps the folders of src/ in layers; this keeps the files of every folder without loops.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['src', 'sim', 'console', 'bench', 'scripts', 'test'];

/** Every specifier of `import … from`, `export … from`, `import '…'` and `import('…')` (JSDoc types included). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\1/g;

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names: TypeScript's `./x.js` is `./x.ts`; a folder is its index. */
function resolveImport(from: string, specifier: string): string | undefined {
  const path = resolve(dirname(from), specifier);
  return [path, path.replace(/\.js$/, '.ts'), `${path}.ts`, join(path, 'index.ts')].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** File → the project files it imports. */
export function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const imported = [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
        .map(([, , specifier]) => specifier)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolveImport(file, specifier))
        .filter((target): target is string => target !== undefined && target !== file);
      return [file, [...new Set(imported)]];
    }),
  );
}

/** The groups of nodes that reach each other (Tarjan's strongly connected components) of more than one node. */
export function loopsOf(graph: Map<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) loops.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return loops;
}

describe('the files of src, sim, console, bench, scripts and test', () => {
  const files = FOLDERS.flatMap((folder) => codeFiles(join(ROOT, folder)));
  const graph = importGraph(files);

  it('import each other without a loop', () => {
    const loops = loopsOf(graph).map((group) => group.map((file) => relative(ROOT, file)).join(' <-> '));
    expect(loops).toEqual([]);
  });

  it('are read with their imports, the console and type-only imports included', () => {
    const importsOf = (file: string) => (graph.get(join(ROOT, file)) ?? []).map((target) => relative(ROOT, target));
    expect(files.length).toBeGreaterThan(300);
    expect(importsOf('console/salesforce-form.js')).toEqual(expect.arrayContaining(['console/connection-form-shell.js', 'console/dom.js']));
    expect(importsOf('src/mappings/mapping.repository.ts')).toContain('src/mappings/crm-target.ts');
    expect(importsOf('sim/salesforce/salesforce-sim.ts').length).toBeGreaterThan(0);
  });

  it('a loop is found, however long, and every file on it named', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['d', 'a']],
      ['d', ['e']],
      ['e', ['d']],
      ['f', ['a']],
    ]);
    expect(loopsOf(graph)).toEqual(
      expect.arrayContaining([
        ['a', 'b', 'c'],
        ['d', 'e'],
      ]),
    );
    expect(loopsOf(graph)).toHaveLength(2);
    expect(loopsOf(new Map([...graph, ['c', ['d']], ['e', []]]))).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders under src/ are layers: a folder may import a lower one, never a higher one, so no two folders import
 * each other, directly or round a longer loop. A loop makes every folder on it depend on all the others, and it is
 * where Nest module cycles (and forwardRef) come from.
 */

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every specifier of `import … from`, `export … from`, `import '…'` and `import('…')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\1/g;

type FolderGraph = Map<string, Map<string, string[]>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The first path segment under src/, or undefined for a file at its top (main.ts) or outside it. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Folder → imported folder → the files (relative to src/) whose imports make that edge. */
function folderGraph(): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const [, , specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (!specifier.startsWith('.')) continue;
      const to = folderOf(resolve(dirname(file), specifier));
      if (!to || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), relative(SRC, file)]);
    }
  }
  return graph;
}

/** One cycle of the graph as the folders round it (first repeated last), or undefined when it has none. */
export function findCycle(graph: Map<string, Iterable<string>>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (folder: string): string[] | undefined => {
    const onPath = path.indexOf(folder);
    if (onPath >= 0) return [...path.slice(onPath), folder];
    if (done.has(folder)) return undefined;
    path.push(folder);
    for (const next of graph.get(folder) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(folder);
    return undefined;
  };
  for (const folder of [...graph.keys()].sort()) {
    const cycle = visit(folder);
    if (cycle) return cycle;
  }
  return undefined;
}

function describeCycle(graph: FolderGraph, cycle: string[]): string {
  const edges = cycle.slice(1).map((to, i) => `  ${cycle[i]} -> ${to} (${[...new Set(graph.get(cycle[i])?.get(to))].join(', ')})`);
  return `the folders under src/ import each other in a cycle: ${cycle.join(' -> ')}\n${edges.join('\n')}`;
}

/**
 * The layers from the bottom, as docs/architecture.md lists them: a folder imports only folders of lower layers (the
 * folders of one layer do not import each other). A new folder is placed here and there.
 */
export const LAYERS = [
  ['config', 'discovery', 'logging'],
  ['observability'],
  ['database', 'http'],
  ['common', 'connections', 'queues'],
  ['auth', 'health', 'service-api'],
  ['alerts', 'crm-settings', 'domain', 'projects'],
  ['sync-log'],
  ['actions'],
  ['mappings'],
  ['appointment-crm', 'record-crm', 'webhooks'],
  ['automations', 'connection-console', 'relay', 'revenue', 'search', 'suggestions'],
  ['funnel', 'operations', 'reconcile'],
  ['app'],
];

describe('the folders under src/', () => {
  it('each import only folders of the layers below theirs', () => {
    const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));
    const graph = folderGraph();
    expect([...graph.keys()].filter((folder) => !layerOf.has(folder))).toEqual([]);
    const upward = [...graph].flatMap(([from, edges]) =>
      [...edges]
        .filter(([to]) => !((layerOf.get(to) ?? Infinity) < layerOf.get(from)!))
        .map(([to, files]) => `${from} -> ${to} (${[...new Set(files)].join(', ')})`),
    );
    expect(upward).toEqual([]);
  });

  it('import each other without a cycle', () => {
    const graph = folderGraph();
    const cycle = findCycle(new Map([...graph].map(([folder, edges]) => [folder, edges.keys()])));
    expect(cycle && describeCycle(graph, cycle)).toBeUndefined();
  });

  it('are read with their imports (the graph is not empty: app imports the feature modules)', () => {
    const graph = folderGraph();
    expect([...(graph.get('app')?.keys() ?? [])]).toEqual(expect.arrayContaining(['auth', 'actions', 'sync-log', 'config', 'database']));
    expect(graph.get('config')).toBeUndefined();
  });

  it('a cycle is found and named, however long', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['d', 'a']],
      ['d', []],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([...graph, ['c', ['d']]]))).toBeUndefined();
  });
});

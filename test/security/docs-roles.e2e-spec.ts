import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { readFileSync, readdirSync } from 'node:fs';
import { ADMIN_ROUTE, REQUIRED_ROLE } from '../../src/auth/admin-auth.guard.js';
import { startHarness, type Harness } from '../support/harness.js';

type Role = 'none' | 'viewer' | 'operator' | 'admin';
interface AppRoute {
  method: string;
  path: string;
  role: Role;
}

const DOCS = new URL('../../docs/', import.meta.url);
const doc = (name: string) => readFileSync(new URL(name, DOCS), 'utf8');

/** Every controller route of the app with the role AdminAuthGuard asks of it (its rule, from the same metadata). */
function routesOf(h: Harness): AppRoute[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const routes: AppRoute[] = [];
  for (const wrapper of h.app.get(DiscoveryService).getControllers()) {
    const type = wrapper.metatype as (new (...args: never[]) => unknown) | null;
    if (!type) continue;
    const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
    for (const name of scanner.getAllMethodNames(type.prototype as object)) {
      const handler = (type.prototype as Record<string, unknown>)[name] as object;
      const verb = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (verb === undefined || sub === undefined) continue;
      const method = RequestMethod[verb];
      const path = `/${[base, sub]
        .map((p) => p.replace(/^\/+|\/+$/g, ''))
        .filter(Boolean)
        .join('/')}`;
      const declared = reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, [handler as () => void, type]);
      const marked = reflector.getAllAndOverride<boolean | undefined>(ADMIN_ROUTE, [handler as () => void, type]);
      const guarded = Boolean(declared || marked || path === '/api' || path.startsWith('/api/'));
      routes.push({ method, path, role: declared ?? (guarded ? (method === 'GET' ? 'viewer' : 'admin') : 'none') });
    }
  }
  return routes;
}

/** A documented `/api/connections/:name/test` (or `…/record-crm/callback`) matches the app's route of that shape. */
const sameShape = (documented: string, route: string): boolean => {
  const parts = (p: string) => p.replace(/\?.*$/, '').split('/');
  const [a, b] = [parts(documented), parts(route)];
  return a.length === b.length && a.every((part, i) => part === b[i] || b[i].startsWith(':') || (part.startsWith(':') && b[i].startsWith(':')));
};

/** The rows of the docs' route tables: `| \`METHOD /path\`, … | role | …`. */
function documentedRoles(): Array<{ file: string; method: string; path: string; role: string }> {
  const rows: Array<{ file: string; method: string; path: string; role: string }> = [];
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
    for (const line of doc(file).split('\n')) {
      const row = /^\| ((?:`[A-Z]+ \/[^`]*`(?:, )?)+) \| (viewer|operator|admin) \|/.exec(line);
      if (!row) continue;
      for (const [, method, path] of row[1].matchAll(/`([A-Z]+) (\/[^`]*)`/g)) rows.push({ file, method, path, role: row[2] });
    }
  }
  return rows;
}

describe('the docs name the roles the code asks', () => {
  let h: Harness;
  let routes: AppRoute[];
  beforeAll(async () => {
    h = await startHarness({ redisDb: 5 });
    routes = routesOf(h);
  });
  afterAll(() => h.close());

  it('every route a docs table names has the role the table says', () => {
    const rows = documentedRoles();
    expect(rows.length).toBeGreaterThan(30);
    const wrong = rows.flatMap(({ file, method, path, role }) => {
      const route = routes.find((r) => r.method === method && sameShape(path, r.path));
      if (!route) return [`${file}: ${method} ${path} is no route of the app`];
      return route.role === role ? [] : [`${file}: ${method} ${path} says ${role}, the code asks ${route.role}`];
    });
    expect(wrong).toEqual([]);
  });

  it("security.md's table of roles names every route whose role is not the rule's (viewer for GET, admin for the rest), in its role's row", () => {
    const table = doc('security.md')
      .split('\n')
      .filter((line) => /^ {2}\| `?(none|viewer|operator|admin)`? \|/.test(line));
    expect(table).toHaveLength(4);
    const rowOf = (role: Role) => table.find((line) => line.startsWith(`  | ${role === 'none' ? 'none' : `\`${role}\``} |`))!;
    const named = (row: string, route: AppRoute) =>
      [...row.matchAll(/`(?:([A-Z]+) )?(\/[^`\s]*)`/g)].some(([, method, path]) =>
        path.endsWith('/*')
          ? route.path.startsWith(path.slice(0, -1)) && (!method || method === route.method)
          : (!method || method === route.method) && sameShape(path, route.path),
      );
    const exceptions = routes.filter((r) => r.path.startsWith('/api') && r.role !== (r.method === 'GET' ? 'viewer' : 'admin'));
    expect(exceptions.length).toBeGreaterThan(5);
    const unnamed = exceptions.filter((r) => !named(rowOf(r.role), r)).map((r) => `${r.method} ${r.path} (${r.role})`);
    expect(unnamed).toEqual([]);
  });
});

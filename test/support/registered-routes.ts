/**
 * Every route a Fastify app has registered, read from its own route tree (`printRoutes`), so
 * that a test can hold a table of routes against the app: a route added later cannot be missing
 * from the table unnoticed. HEAD routes are left out: Fastify adds one for every GET route, and it
 * passes through the same hooks as its GET. The tree is read with its common prefixes (one line
 * per radix node, routes or not): without them find-my-way prints a wildcard route under its
 * nearest route as a bare `*`, dropping the path between them (`/docs/static/*` as `/docs*`).
 */
import type { FastifyInstance } from 'fastify';

/** `METHOD /path` with Fastify's parameter syntax (`/api/v1/scans/:scanId`), sorted. */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  // The path of the node last seen at each depth; a child's segment continues its parent's path.
  const pathAtDepth: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    // `│   │   └── :scanId (GET, HEAD)`: four characters per level before the branch; a node
    // without routes (`│   └── /`) only continues the path.
    const match = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (match === null) {
      // A line this parser does not understand would drop routes silently: refuse it instead.
      if (line.trim() !== '') {
        throw new Error(`registeredRoutes: unexpected line in printRoutes: ${line}`);
      }
      continue;
    }
    const depth = (match[1] ?? '').length / 4;
    const path = `${depth === 0 ? '' : pathAtDepth[depth - 1]}${match[2]}`;
    pathAtDepth[depth] = path;
    for (const method of (match[3] ?? '').split(', ')) {
      if (method !== '' && method !== 'HEAD') {
        routes.push(`${method} ${path}`);
      }
    }
  }
  return routes.sort();
}

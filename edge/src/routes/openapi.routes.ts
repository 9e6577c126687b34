/**
 * `/openapi.json` (the OpenAPI 3.1 document generated from the contract, with both regions' base addresses
 * as servers) and `/docs` (the reference page; its script and styles are static assets under /docs/).
 * Both are public: no access key.
 */
import { Hono } from 'hono';
import { REGIONS, type RegionId } from '@iris/shared';
import { buildOpenApiDocument, type OpenApiServer } from '@iris/shared/openapi';
import type { EdgeConfig } from '../config.js';
import type { AppEnv } from '../env.js';

let cached: { key: string; body: string } | undefined;

/** Each region's base address as seen from this request: a configured host, else `{region}.` + the base host. */
export function regionServers(requestUrl: string, config: Pick<EdgeConfig, 'regionHosts'>): OpenApiServer[] {
  const url = new URL(requestUrl);
  const port = url.port ? `:${url.port}` : '';
  let base = url.hostname.toLowerCase();
  for (const region of REGIONS) if (base.startsWith(`${region}.`)) base = base.slice(region.length + 1);
  if (/^[\d.]+$/.test(base) || base.includes(':')) base = 'localhost';
  const configured = new Map<RegionId, string>();
  for (const [host, region] of config.regionHosts) if (!configured.has(region)) configured.set(region, host);
  return REGIONS.map((region, i) => ({
    url: `${url.protocol}//${configured.get(region) ?? `${region}.${base}${port}`}`,
    description: `${region}${i === 0 ? ' (default region)' : ''}`,
  }));
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Iris API reference</title>
<link rel="icon" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false });
</script>
</body>
</html>
`;

export const openApiRoutes = new Hono<AppEnv>()
  .get('/openapi.json', function openApiDocument(c) {
    const servers = regionServers(c.req.url, c.get('config'));
    const key = JSON.stringify(servers);
    if (cached?.key !== key) cached = { key, body: JSON.stringify(buildOpenApiDocument({ servers })) };
    return c.body(cached.body, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' });
  })
  .get('/docs', function referencePage(c) {
    return c.html(DOCS_PAGE);
  });

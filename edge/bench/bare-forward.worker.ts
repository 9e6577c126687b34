/**
 * The floor of the edge-overhead benchmark: a Worker that forwards every request to one backend and does
 * nothing else (no D1, no signature, no parsing), run on the same runtime as the edge (scripts/edge-server.ts).
 */
interface Env {
  BACKEND_URL: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    return fetch(env.BACKEND_URL + url.pathname + url.search, { method: request.method, headers: request.headers, body: request.body });
  },
};

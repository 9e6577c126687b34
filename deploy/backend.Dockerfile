# Iris region backend. Build from the repository root:
#   docker build -f deploy/backend.Dockerfile --build-arg IRIS_BUILD_COMMIT=$(git rev-parse HEAD) -t iris-backend .
# Node: any release from the floor in package.json's `engines` (20.20, the version the tests run on) works;
# the image takes Node 22, the LTS line (20 has reached its end of life).
# Stage 1 installs everything (TypeScript, node-gyp for hnswlib-node), compiles shared/ and region-backend/
# to JavaScript, then removes the development packages (no TypeScript, no PostgreSQL binaries): the same
# packages as `npm ci --omit=dev`, without installing and building them a second time.
# test/e2e/dockerfile.e2e.test.ts follows this file line by line (npm test): keep to FROM, ARG, WORKDIR, COPY,
# RUN, ENV, USER, VOLUME, EXPOSE and CMD, and to the runtime stage's one account-setup RUN line.
FROM node:22-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc tsconfig.base.json ./
COPY shared/package.json shared/
COPY edge/package.json edge/
COPY region-backend/package.json region-backend/
# The console and CLI workspaces' manifests keep npm ci in step with the lock file (neither is built here).
COPY console/package.json console/
COPY cli/package.json cli/
RUN npm ci
COPY shared shared
COPY region-backend region-backend
RUN npm run build && npm prune --omit=dev

# Stage 2: the runtime. Node, the compiled code, production node_modules (with their prebuilt native modules:
# sharp, onnxruntime-node, hnswlib-node) and the model files (in those packages and region-backend/models).
FROM node:22-bookworm-slim
# The shared store (blobs, batch files, upload temp files: one volume mounted by every process of the region)
# and this container's own caches (index files, converted models: rebuilt when lost), both owned by iris.
RUN useradd --system --user-group --home-dir /var/lib/iris --create-home --shell /usr/sbin/nologin iris && install -d -o iris -g iris /var/lib/iris/shared /var/cache/iris
WORKDIR /opt/iris
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/shared/package.json shared/
COPY --from=build /src/shared/dist shared/dist
COPY --from=build /src/region-backend/package.json region-backend/
COPY --from=build /src/region-backend/dist region-backend/dist
COPY --from=build /src/region-backend/models region-backend/models
USER iris
WORKDIR /opt/iris/region-backend
# The commit the image was built from, reported by /readyz and the iris_build_info metric.
ARG IRIS_BUILD_COMMIT=unknown
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8801 IRIS_METRICS_HOST=0.0.0.0 IRIS_METRICS_PORT=9464 \
    IRIS_DATA_DIR=/var/lib/iris IRIS_SHARED_DIR=/var/lib/iris/shared IRIS_CACHE_DIR=/var/cache/iris \
    IRIS_BUILD_COMMIT=${IRIS_BUILD_COMMIT} MALLOC_ARENA_MAX=2
VOLUME /var/lib/iris/shared /var/cache/iris
# 8801: the API (for the edge, through the load balancer); 9464: /metrics (for Prometheus, never public).
EXPOSE 8801 9464
# IRIS_REGION, DATABASE_URL and INTERNAL_SECRET come from the environment (compose.yaml, or docker run -e).
CMD ["node", "--conditions=iris-dist", "dist/server.js"]

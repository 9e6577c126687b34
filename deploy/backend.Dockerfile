# Iris region backend. Build from the repository root:
#   docker build -f deploy/backend.Dockerfile -t iris-backend .
# Stage 1 installs everything (TypeScript, node-gyp for hnswlib-node), compiles shared/ and region-backend/
# to JavaScript, then reinstalls production dependencies only (no TypeScript, no PostgreSQL binaries).
FROM node:22-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc tsconfig.base.json ./
COPY shared/package.json shared/
COPY edge/package.json edge/
COPY region-backend/package.json region-backend/
# The console workspace's manifest keeps npm ci in step with the lock file (the console itself is not built here).
COPY console/package.json console/
RUN npm ci
COPY shared shared
COPY region-backend region-backend
RUN npm run build && npm ci --omit=dev

# Stage 2: the runtime. Node, the compiled code, production node_modules (with their prebuilt native modules:
# sharp, onnxruntime-node, hnswlib-node) and the model files (in those packages and region-backend/models).
FROM node:22-bookworm-slim
RUN useradd --system --user-group --home-dir /var/lib/iris --create-home --shell /usr/sbin/nologin iris
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
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8801 IRIS_DATA_DIR=/var/lib/iris
VOLUME /var/lib/iris
EXPOSE 8801
# IRIS_REGION, DATABASE_URL and INTERNAL_SECRET come from the environment (compose.yaml, or docker run -e).
CMD ["node", "--conditions=iris-dist", "dist/server.js"]

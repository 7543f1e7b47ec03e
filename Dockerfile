# One image for every Pylon process; the command picks the entry point (see docker-compose.yml).
FROM node:24-slim
WORKDIR /app
RUN corepack enable || npm install -g pnpm@10.34.8
COPY package.json pnpm-workspace.yaml pnpm-lock.yaml tsconfig.base.json tsconfig.json ./
COPY services ./services
COPY gateway ./gateway
COPY rest-facade ./rest-facade
COPY legacy-adapter ./legacy-adapter
COPY bench ./bench
COPY schema ./schema
COPY scripts ./scripts
RUN pnpm install --frozen-lockfile
ENV NODE_ENV=production HOST=0.0.0.0
USER node
EXPOSE 4000 4001 4080
CMD ["pnpm", "exec", "tsx", "gateway/src/all-in-one.main.ts"]
